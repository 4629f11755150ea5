/**
 * Wire shapes of stage signoffs (wire notes §3.20; the fields are ours): a signoff request and
 * the over-the-shoulder finalize token. Pure: callers load the records.
 */
import { authenticatedBySchema, BY_PASSWORD } from '../domain/signature-auth.ts';
import * as z from 'zod/mini';
import type { SignoffRequestRecord } from '../db/entities/signoff.ts';
import { actingTokenSchema, actingTokenView } from './common-schemas.ts';
import { actorUserid } from '../domain/caller.ts';
import type { StageDocument } from './course-views.ts';

const id = z.int();
const nullableId = z.nullable(z.int());
const timestamp = z.int();
const stageDoctype = z.enum(['guide', 'wiki', 'external_training_module']);

/** A stage signoff request in the signoff routes' answers (wire notes §3.20; the fields are ours). */
export const signoffRequestSchema = z.object({
  signoff_requestid: id,
  stage_assessmentid: id,
  wikiid: id,
  course_title: z.nullable(z.string()),
  course_stageid: id,
  doctype: stageDoctype,
  docid: id,
  doc_title: z.nullable(z.string()),
  doc_url: z.nullable(z.string()),
  doc_revisionid: nullableId,
  userid: id,
  username: z.nullable(z.string()),
  teamid: id,
  state: z.enum(['requested', 'responded', 'acknowledged', 'cancelled']),
  comments: z.string(),
  requested_date: timestamp,
  response: z.nullable(
    z.object({
      approved: z.boolean(),
      comments: z.string(),
      responder_userid: id,
      response_date: timestamp,
      method: z.enum(['signer', 'password']),
      /** How an e-signature (`password`) was proven (decision 237); null for `signer`. */
      authenticated_by: z.nullable(authenticatedBySchema),
      responder_username: z.nullable(z.string()),
    }),
  ),
  acknowledged_date: z.nullable(timestamp),
  cancelled_date: z.nullable(timestamp),
  cancelled_by: nullableId,
  cancelled_by_token: z.optional(actingTokenSchema),
});

/** Over-the-shoulder signoff, step 1: the single-use token and where to use it. */
export const signoffFinalizeTokenSchema = z.object({
  signoff_requestid: id,
  signer_userid: id,
  token: z.string(),
  expires_in: z.int(),
  expires_at: timestamp,
  finalize: z.object({ method: z.literal('PATCH'), path: z.string() }),
});

export type SignoffRequestView = z.output<typeof signoffRequestSchema>;

/** A signoff request as the signoff routes answer it, with the names and titles looked up by the caller. */
export function signoffRequestView(
  request: SignoffRequestRecord,
  names: {
    courseTitle: string | null;
    document: StageDocument | undefined;
    username: string | null;
    responderUsername: string | null;
  },
): SignoffRequestView {
  return {
    signoff_requestid: request.signoff_requestid,
    stage_assessmentid: request.stage_assessmentid,
    wikiid: request.wikiid,
    course_title: names.courseTitle,
    course_stageid: request.course_stageid,
    doctype: request.doctype,
    docid: request.docid,
    doc_title: names.document?.title ?? null,
    doc_url: names.document?.url ?? null,
    doc_revisionid: request.doc_revisionid,
    userid: request.userid,
    username: names.username,
    teamid: request.teamid,
    state: request.state,
    comments: request.comments,
    requested_date: request.requested_date,
    response: request.response
      ? {
          ...request.response,
          authenticated_by:
            request.response.method === 'signer' ? null : (request.response.authenticated_by ?? BY_PASSWORD),
          responder_username: names.responderUsername,
        }
      : null,
    acknowledged_date: request.acknowledged_date,
    cancelled_date: request.cancelled_date,
    cancelled_by: actorUserid(request.cancelled_by),
    ...actingTokenView('cancelled_by', request.cancelled_by_token),
  };
}
