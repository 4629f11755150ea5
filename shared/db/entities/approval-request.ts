/**
 * Approval request: pk APPROVAL_REQUEST#<id> / sk REQUEST. It copies its process's stages when
 * made, and keeps its signatures (a list) on the item; every change is guarded by `version`.
 * - The requester's requests: gsi1 APPROVAL_REQUESTS#BY#<userid>, padded id.
 * - Waiting for a team: gsi2 APPROVAL_PENDING#TEAM#<teamid of the current stage>, padded id
 *   (sparse: only pending requests carry it; it moves when the request moves to the next stage).
 * - `releaseid`: the release a request was opened by (set when made, never changed); the
 *   transaction that ends the request ends that release too (shared/content/release-approval.ts).
 * - An approved revision: pk APPROVAL_APPROVED#<DOCTYPE>#<docid> / sk REV#<padded revisionid>
 *   {approval_requestid}, written in the transaction of the signature that approves a request and
 *   never removed (an approval stays given): a release of that revision needs no new request.
 * - A document's open request: pk APPROVAL_OPEN#<DOCTYPE>#<docid> / sk OPEN, written with
 *   attribute_not_exists in the request's transaction (one open request per document) and
 *   deleted in the transaction that ends the request.
 */
import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { parseStored, recordFrom, type FilledRecord } from '../stored-item.ts';
import { INDEXES } from '../table.ts';
import { queryPage } from '../paging.ts';
import { batchGetInOrder } from '../batch.ts';
import type { LabelledWrite } from '../transactions.ts';
import { outboxPuts } from './outbox.ts';
import { requestChangedEvents, requestCreatedEvents } from '../../domain/events/content-events.ts';
import type { Doctype } from '../../domain/doctypes.ts';
import { approvalStageSchema } from './approval-process.ts';
import { authenticatedBySchema } from '../../domain/signature-auth.ts';
import * as z from 'zod/mini';

export interface OpenRequestRef {
  approval_requestid: number;
  revisionid: number;
}

const approvalSignatureSchema = z.object({
  /** 1-based stage the signature was given in. */
  stage: z.int(),
  userid: z.int(),
  /** The signer's name as printed at signing time (§11.50). */
  printed_name: z.string(),
  meaning: z.enum(['approve', 'reject']),
  reason: z.string(),
  signed_at: z.number(),
  revisionid: z.int(),
  /** SHA-256 of the signed revision's snapshot (shared/content/documents.ts). */
  revision_hash: z.string(),
  method: z.enum(['password', 'token']),
  /** Whose session the signature was entered in (differs from userid over the shoulder). */
  entered_by_userid: z.int(),
  /** How the signer proved themselves (decision 237; none on older signatures: password). */
  authenticated_by: z.optional(authenticatedBySchema),
});
export type ApprovalSignature = z.output<typeof approvalSignatureSchema>;

/** An ApprovalRequest as requestCreateWrites puts it and requestUpdateWrites moves it. */
export const approvalRequestItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('REQUEST'),
  entity: z.literal('ApprovalRequest'),
  gsi1pk: z.string(),
  gsi1sk: z.string(),
  /** While pending: the current stage's team queue. */
  gsi2pk: z.optional(z.string()),
  gsi2sk: z.optional(z.string()),
  approval_requestid: z.int().check(z.positive()),
  doctype: z.enum(['guide', 'wiki']),
  docid: z.int().check(z.positive()),
  title: z.string(),
  revisionid: z.int(),
  revision_hash: z.string(),
  approval_processid: z.int(),
  process_name: z.string(),
  stages: z.array(approvalStageSchema),
  status: z.enum(['pending', 'approved', 'rejected', 'superseded']),
  current_stage: z.nullable(z.int()),
  signatures: z.array(approvalSignatureSchema),
  signer_userids: z.array(z.int()),
  requested_by: z.int(),
  notes: z.string(),
  created_date: z.number(),
  completed_date: z.nullable(z.number()),
  superseded_by_revisionid: z.nullable(z.int()),
  /**
   * The release waiting for this request (POST /guides/releases, /wikis/{id}/releases); null when
   * asked directly. Requests made before releases opened them carry none (read as null).
   */
  releaseid: z.optional(z.nullable(z.int())),
  version: z.int(),
});

export type ApprovalRequestRecord = FilledRecord<typeof approvalRequestItemSchema, 'releaseid'>;

export const openApprovalRequestItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('OPEN'),
  entity: z.literal('OpenApprovalRequest'),
  approval_requestid: z.int().check(z.positive()),
  revisionid: z.int(),
});

export const approvedRevisionItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('ApprovedRevision'),
  approval_requestid: z.int().check(z.positive()),
  revisionid: z.int(),
  approved_date: z.number(),
});

export function requestKey(id: number) {
  return { pk: `APPROVAL_REQUEST#${id}`, sk: 'REQUEST' } as const;
}

export function openKey(doctype: Doctype, docid: number) {
  return { pk: `APPROVAL_OPEN#${doctype.toUpperCase()}#${docid}`, sk: 'OPEN' } as const;
}

export function approvedKey(doctype: Doctype, docid: number, revisionid: number) {
  return { pk: `APPROVAL_APPROVED#${doctype.toUpperCase()}#${docid}`, sk: `REV#${padId(revisionid)}` };
}

const pendingPartition = (teamid: number) => `APPROVAL_PENDING#TEAM#${teamid}`;

function pendingIndex(request: ApprovalRequestRecord): Record<string, string> {
  if (request.status !== 'pending' || request.current_stage === null) return {};
  return {
    [INDEXES.gsi2.pk]: pendingPartition(request.stages[request.current_stage - 1].teamid),
    [INDEXES.gsi2.sk]: padId(request.approval_requestid),
  };
}

function requestFromItem(item: Record<string, unknown>): ApprovalRequestRecord {
  const record = recordFrom(approvalRequestItemSchema, item);
  return { ...record, releaseid: record.releaseid ?? null };
}

/** A new request and its document's open-request claim (label `open` fails if one is open). */
export function requestCreateWrites(request: ApprovalRequestRecord): LabelledWrite[] {
  return [
    {
      label: 'request',
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...requestKey(request.approval_requestid),
            entity: 'ApprovalRequest',
            [INDEXES.gsi1.pk]: `APPROVAL_REQUESTS#BY#${request.requested_by}`,
            [INDEXES.gsi1.sk]: padId(request.approval_requestid),
            ...pendingIndex(request),
            ...request,
          } satisfies z.input<typeof approvalRequestItemSchema>,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
    {
      label: 'open',
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...openKey(request.doctype, request.docid),
            entity: 'OpenApprovalRequest',
            approval_requestid: request.approval_requestid,
            revisionid: request.revisionid,
          } satisfies z.input<typeof openApprovalRequestItemSchema>,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
    ...outboxPuts(requestCreatedEvents(request)),
  ];
}

/**
 * Moves a request read at `before.version` to `after`'s state (label `request` fails if anyone
 * changed it since); an ended request also gives up its document's open-request claim.
 */
export function requestUpdateWrites(before: ApprovalRequestRecord, after: ApprovalRequestRecord): LabelledWrite[] {
  const pending = pendingIndex(after);
  const names: Record<string, string> = { '#status': 'status', '#g2pk': INDEXES.gsi2.pk, '#g2sk': INDEXES.gsi2.sk };
  const values: Record<string, unknown> = {
    ':status': after.status,
    ':stage': after.current_stage,
    ':signatures': after.signatures,
    ':signers': after.signer_userids,
    ':completed': after.completed_date,
    ':superseded': after.superseded_by_revisionid,
    ':next': before.version + 1,
    ':expected': before.version,
  };
  let update =
    'SET #status = :status, current_stage = :stage, signatures = :signatures, signer_userids = :signers, ' +
    'completed_date = :completed, superseded_by_revisionid = :superseded, version = :next';
  if (pending[INDEXES.gsi2.pk]) {
    values[':g2pk'] = pending[INDEXES.gsi2.pk];
    values[':g2sk'] = pending[INDEXES.gsi2.sk];
    update += ', #g2pk = :g2pk, #g2sk = :g2sk';
  } else {
    update += ' REMOVE #g2pk, #g2sk';
  }
  const writes: LabelledWrite[] = [
    {
      label: 'request',
      item: {
        Update: {
          TableName: tableName(),
          Key: requestKey(after.approval_requestid),
          UpdateExpression: update,
          ConditionExpression: 'attribute_exists(pk) AND version = :expected',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
    },
  ];
  if (before.status === 'pending' && after.status !== 'pending') {
    writes.push({
      label: 'open',
      item: {
        Delete: {
          TableName: tableName(),
          Key: openKey(after.doctype, after.docid),
          ConditionExpression: 'attribute_not_exists(pk) OR approval_requestid = :id',
          ExpressionAttributeValues: { ':id': after.approval_requestid },
        },
      },
    });
  }
  writes.push(...outboxPuts(requestChangedEvents(before, after)));
  return writes;
}

/** Records that `request`'s revision is approved (with the signature that approved it). */
export function approvedRevisionWrite(request: ApprovalRequestRecord, at: number): LabelledWrite {
  return {
    label: 'approved-revision',
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...approvedKey(request.doctype, request.docid, request.revisionid),
          entity: 'ApprovedRevision',
          approval_requestid: request.approval_requestid,
          revisionid: request.revisionid,
          approved_date: at,
        } satisfies z.input<typeof approvedRevisionItemSchema>,
      },
    },
  };
}

/** The request that approved a document's revision, if one did. */
export async function getApprovedRevision(
  doctype: Doctype,
  docid: number,
  revisionid: number,
): Promise<{ approval_requestid: number } | undefined> {
  const item = await getItem(approvedKey(doctype, docid, revisionid), { consistent: true });
  if (!item) return undefined;
  const { approval_requestid } = parseStored(approvedRevisionItemSchema, item);
  return { approval_requestid };
}

export async function getRequest(id: number): Promise<ApprovalRequestRecord | undefined> {
  const item = await getItem(requestKey(id), { consistent: true });
  return item ? requestFromItem(item) : undefined;
}

export async function getRequests(ids: number[]): Promise<ApprovalRequestRecord[]> {
  return (await batchGetInOrder([...new Set(ids)].map(requestKey))).map(requestFromItem);
}

export async function getOpenRequest(doctype: Doctype, docid: number): Promise<OpenRequestRef | undefined> {
  const item = await getItem(openKey(doctype, docid), { consistent: true });
  if (!item) return undefined;
  const { approval_requestid, revisionid } = parseStored(openApprovalRequestItemSchema, item);
  return { approval_requestid, revisionid };
}

/** Requests a user made, newest first. */
export async function listRequestedBy(
  userid: number,
  page: { limit: number; offset: number },
): Promise<ApprovalRequestRecord[]> {
  const items = await queryPage(
    { index: INDEXES.gsi1, partition: `APPROVAL_REQUESTS#BY#${userid}`, descending: true },
    page,
  );
  return items.map(requestFromItem);
}

/**
 * Pending requests whose current stage is a team's, that `userid` has not signed yet, newest
 * first: the first `count` of them.
 */
export async function listPendingForTeam(
  teamid: number,
  userid: number,
  count: number,
): Promise<ApprovalRequestRecord[]> {
  const items = await queryPage(
    {
      index: INDEXES.gsi2,
      partition: pendingPartition(teamid),
      descending: true,
      filter: { FilterExpression: 'NOT contains(signer_userids, :me)', ExpressionAttributeValues: { ':me': userid } },
    },
    { limit: count, offset: 0 },
  );
  return items.map(requestFromItem);
}
