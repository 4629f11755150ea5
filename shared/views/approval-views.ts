/**
 * Wire shapes of approvals (the real bodies are not documented; docs/wire-fidelity.md §3.25): a zod schema
 * per shape, published as the routes' responses in OpenAPI, and the functions that build them.
 */
import { authenticatedBySchema, BY_PASSWORD } from '../domain/signature-auth.ts';
import * as z from 'zod/mini';
import { APPROVAL_STATUSES, approvalsIn, stageProgress, type StageRule } from '../domain/approval-flow.ts';
import { DOCTYPES } from '../domain/doctypes.ts';
import { actorUserid, type Caller } from '../domain/caller.ts';
import { actingTokenSchema, actingTokenView } from './common-schemas.ts';
import type { ApprovalAttachmentRecord, ApprovalProcessRecord } from '../db/entities/approval-process.ts';
import type { ApprovalRequestRecord } from '../db/entities/approval-request.ts';

const id = z.int();

export const processStageSchema = z.object({
  stage: z.int(),
  name: z.string(),
  teamid: id,
  team_name: z.nullable(z.string()),
  quorum: z.int(),
});

export const processSchema = z.object({
  approval_processid: id,
  name: z.string(),
  description: z.string(),
  stages: z.array(processStageSchema),
  /** null when a site API token created it (`created_by_token` names it; decision 260). */
  created_by: z.nullable(id),
  created_by_token: z.optional(actingTokenSchema),
  created_date: z.int(),
  modified_by: z.nullable(id),
  modified_by_token: z.optional(actingTokenSchema),
  modified_date: z.int(),
});

export const attachmentSchema = z.object({
  wikiid: id,
  approval_processid: id,
  attached_by: z.nullable(id),
  attached_by_token: z.optional(actingTokenSchema),
  attached_date: z.int(),
  process: processSchema,
});

export const approvalSignatureSchema = z.object({
  stage: z.int(),
  userid: id,
  printed_name: z.string(),
  meaning: z.enum(['approve', 'reject']),
  reason: z.string(),
  signed_at: z.int(),
  revisionid: id,
  revision_hash: z.string(),
  method: z.enum(['password', 'token']),
  entered_by_userid: id,
  /** How the signer proved themselves: password, or a step-up at their identity provider (decision 237). */
  authenticated_by: authenticatedBySchema,
});

export const requestSchema = z.object({
  approval_requestid: id,
  doctype: z.enum(DOCTYPES),
  docid: id,
  title: z.string(),
  revisionid: id,
  revision_hash: z.string(),
  approval_processid: id,
  process_name: z.string(),
  status: z.enum(APPROVAL_STATUSES),
  current_stage: z.nullable(z.int()),
  stages: z.array(
    z.object({
      stage: z.int(),
      name: z.string(),
      teamid: id,
      quorum: z.int(),
      approvals: z.int(),
      status: z.enum(['waiting', 'pending', 'approved', 'rejected', 'skipped']),
    }),
  ),
  signatures: z.array(approvalSignatureSchema),
  requested_by: id,
  notes: z.string(),
  created_date: z.int(),
  completed_date: z.nullable(z.int()),
  superseded_by_revisionid: z.nullable(id),
  /** The release that opened the request (pending until it is approved); null when asked directly. */
  releaseid: z.nullable(id),
  can_sign: z.boolean(),
});

export const guideProcessesSchema = z.object({
  guideid: id,
  approval_processes: z.array(
    z.object({
      ...processSchema.shape,
      attached_to: z.object({ wikiid: id, namespace: z.string(), title: z.string() }),
      effective: z.boolean(),
    }),
  ),
  open_request: z.nullable(z.object({ approval_requestid: id, revisionid: id })),
});

export type ProcessView = z.infer<typeof processSchema>;
export type RequestView = z.infer<typeof requestSchema>;

export function processView(process: ApprovalProcessRecord, teamNames: Map<number, string>): ProcessView {
  return {
    approval_processid: process.approval_processid,
    name: process.name,
    description: process.description,
    stages: process.stages.map((stage: StageRule, index) => ({
      stage: index + 1,
      name: stage.name,
      teamid: stage.teamid,
      team_name: teamNames.get(stage.teamid) ?? null,
      quorum: stage.quorum,
    })),
    created_by: actorUserid(process.created_by),
    ...actingTokenView('created_by', process.created_by_token),
    created_date: process.created_date,
    modified_by: actorUserid(process.modified_by),
    ...actingTokenView('modified_by', process.modified_by_token),
    modified_date: process.modified_date,
  };
}

export function attachmentView(attachment: ApprovalAttachmentRecord, process: ProcessView) {
  return {
    wikiid: attachment.wikiid,
    approval_processid: attachment.approval_processid,
    attached_by: actorUserid(attachment.attached_by),
    ...actingTokenView('attached_by', attachment.attached_by_token),
    attached_date: attachment.attached_date,
    process,
  };
}

/** Whether `caller` may sign the request now: pending, in the current stage's team, not signed yet. */
export function canSign(request: ApprovalRequestRecord, signer: Pick<Caller, 'userid' | 'teams'>): boolean {
  if (request.status !== 'pending' || request.current_stage === null) return false;
  return (
    signer.teams.includes(request.stages[request.current_stage - 1].teamid) &&
    !request.signer_userids.includes(signer.userid)
  );
}

export function requestView(request: ApprovalRequestRecord, caller: Caller): RequestView {
  const progress = stageProgress(request.stages, request, request.signatures);
  return {
    approval_requestid: request.approval_requestid,
    doctype: request.doctype,
    docid: request.docid,
    title: request.title,
    revisionid: request.revisionid,
    revision_hash: request.revision_hash,
    approval_processid: request.approval_processid,
    process_name: request.process_name,
    status: request.status,
    current_stage: request.current_stage,
    stages: request.stages.map((stage, index) => ({
      stage: index + 1,
      name: stage.name,
      teamid: stage.teamid,
      quorum: stage.quorum,
      approvals: approvalsIn(request.signatures, index + 1),
      status: progress[index],
    })),
    signatures: request.signatures.map((signature) => ({
      ...signature,
      authenticated_by: signature.authenticated_by ?? BY_PASSWORD,
    })),
    requested_by: request.requested_by,
    notes: request.notes,
    created_date: request.created_date,
    completed_date: request.completed_date,
    superseded_by_revisionid: request.superseded_by_revisionid,
    releaseid: request.releaseid,
    can_sign: canSign(request, caller),
  };
}
