/**
 * Stage signoffs.
 * - Request: pk SIGNOFF#<signoff_requestid> / sk SIGNOFF, guarded by `version`. While it awaits
 *   a response it is in its signers' queue (gsi1 SIGNOFFS#PENDING#TEAM#<teamid>); once answered
 *   and until the trainee acknowledges, in the trainee's unacknowledged list
 *   (gsi2 SIGNOFFS#UNACK#USER#<userid>).
 * - The trainee's signoff state for an assessment: pk USER#<userid> /
 *   sk SIGNOFF#<padded stage_assessmentid>, what the stage rule reads. Opening a request puts
 *   it on condition that no request is open (requested or responded), so a trainee has at most
 *   one open request per assessment.
 * - Finalize token of an over-the-shoulder signoff: pk SIGNOFFTOKEN#<sha256> / sk TOKEN,
 *   expiring by TTL, deleted on use (single use).
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { getItem, putItem } from '../items.ts';
import { padId } from '../keys.ts';
import { INDEXES, TTL_ATTRIBUTE } from '../table.ts';
import { batchGetInOrder } from '../batch.ts';
import { queryAll, queryPage } from '../paging.ts';
import type { LabelledWrite } from '../transactions.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import { authenticatedBySchema } from '../../domain/signature-auth.ts';
import * as z from 'zod/mini';
import { serviceAuthorSchema } from './api-token.ts';

export type SignoffRequestState = 'requested' | 'responded' | 'acknowledged' | 'cancelled';

export const OPEN_STATES: SignoffRequestState[] = ['requested', 'responded'];

const signoffState = z.enum(['requested', 'responded', 'acknowledged', 'cancelled']);

const signoffResponseSchema = z.object({
  approved: z.boolean(),
  comments: z.string(),
  responder_userid: z.int(),
  response_date: z.number(),
  /**
   * `signer`: answered by a signed-in signer; `password`: an e-signature (over the shoulder, or an
   * intent confirmed), proven as `authenticated_by` says.
   */
  method: z.enum(['signer', 'password']),
  /** How the e-signature was proven (decision 237; none on older ones: password). */
  authenticated_by: z.optional(authenticatedBySchema),
});
export type SignoffResponse = z.output<typeof signoffResponseSchema>;

/** A SignoffRequest, put whole (with its state's queue keys) on every change. */
export const signoffRequestItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('SIGNOFF'),
  entity: z.literal('SignoffRequest'),
  gsi1pk: z.optional(z.string()),
  gsi1sk: z.optional(z.string()),
  gsi2pk: z.optional(z.string()),
  gsi2sk: z.optional(z.string()),
  signoff_requestid: z.int().check(z.positive()),
  stage_assessmentid: z.int().check(z.positive()),
  wikiid: z.int().check(z.positive()),
  course_stageid: z.int(),
  doctype: z.enum(['guide', 'wiki', 'external_training_module']),
  docid: z.int(),
  /** The stage document's revision when the signoff was requested. */
  doc_revisionid: z.nullable(z.int()),
  /** The trainee. */
  userid: z.int().check(z.positive()),
  /** The team whose members sign. */
  teamid: z.int(),
  state: signoffState,
  comments: z.string(),
  requested_date: z.number(),
  response: z.nullable(signoffResponseSchema),
  acknowledged_date: z.nullable(z.number()),
  cancelled_date: z.nullable(z.number()),
  /** null when open or a site API token (an Admin's) cancelled it: cancelled_by_token (decision 260). */
  cancelled_by: z.nullable(z.int()),
  cancelled_by_token: z.optional(serviceAuthorSchema),
  version: z.int(),
});

export type SignoffRequestRecord = StoredRecord<typeof signoffRequestItemSchema>;

export const traineeSignoffItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('TraineeSignoff'),
  userid: z.int().check(z.positive()),
  stage_assessmentid: z.int().check(z.positive()),
  signoff_requestid: z.int().check(z.positive()),
  state: signoffState,
  approved: z.nullable(z.boolean()),
  acknowledged_date: z.nullable(z.number()),
});

/** What the stage rule needs of a trainee's signoff on one assessment. */
export type TraineeSignoffRecord = StoredRecord<typeof traineeSignoffItemSchema>;

/** A finalize token (a credential: holding it signs as signer_userid). */
export const signoffFinalizeTokenItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('TOKEN'),
  entity: z.literal('SignoffFinalizeToken'),
  ttl: z.number(),
  signoff_requestid: z.int().check(z.positive()),
  /** Who initialized it (signed in) and who signs (the signer of the two people present). */
  caller_userid: z.int().check(z.positive()),
  signer_userid: z.int().check(z.positive()),
  expires: z.number(),
  /** How the person present proved themselves: password, or a fresh sign-in at their identity provider. */
  authenticated_by: z.optional(authenticatedBySchema),
});

export type FinalizeTokenRecord = StoredRecord<typeof signoffFinalizeTokenItemSchema>;

export function requestKey(signoff_requestid: number) {
  return { pk: `SIGNOFF#${signoff_requestid}`, sk: 'SIGNOFF' as const };
}

export function traineeKey(userid: number, stage_assessmentid: number) {
  return { pk: `USER#${userid}`, sk: `SIGNOFF#${padId(stage_assessmentid)}` };
}

export function tokenKey(hash: string) {
  return { pk: `SIGNOFFTOKEN#${hash}`, sk: 'TOKEN' as const };
}

function requestIndexes(request: SignoffRequestRecord): Record<string, string> {
  if (request.state === 'requested')
    return {
      [INDEXES.gsi1.pk]: `SIGNOFFS#PENDING#TEAM#${request.teamid}`,
      [INDEXES.gsi1.sk]: padId(request.signoff_requestid),
    };
  if (request.state === 'responded')
    return {
      [INDEXES.gsi2.pk]: `SIGNOFFS#UNACK#USER#${request.userid}`,
      [INDEXES.gsi2.sk]: padId(request.signoff_requestid),
    };
  return {};
}

const requestFromItem = recordsOf(signoffRequestItemSchema);

/** The request as it is now, on condition the stored one is `expectedVersion` (null: new). Label signoff. */
export function signoffRequestWrite(request: SignoffRequestRecord, expectedVersion: number | null): LabelledWrite {
  return {
    label: 'signoff',
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...requestKey(request.signoff_requestid),
          entity: 'SignoffRequest',
          ...requestIndexes(request),
          ...request,
        } satisfies z.input<typeof signoffRequestItemSchema>,
        ConditionExpression: expectedVersion === null ? 'attribute_not_exists(pk)' : 'version = :version',
        ExpressionAttributeValues: expectedVersion === null ? undefined : { ':version': expectedVersion },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
  };
}

/**
 * The trainee's state for the request's assessment. Opening (state requested) holds only when
 * no request is open (label trainee-signoff fails otherwise); later moves hold only while the
 * state still names this request.
 */
export function traineeSignoffWrite(request: SignoffRequestRecord): LabelledWrite {
  const record: TraineeSignoffRecord = {
    userid: request.userid,
    stage_assessmentid: request.stage_assessmentid,
    signoff_requestid: request.signoff_requestid,
    state: request.state,
    approved: request.response?.approved ?? null,
    acknowledged_date: request.acknowledged_date,
  };
  const opening = request.state === 'requested';
  return {
    label: 'trainee-signoff',
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...traineeKey(request.userid, request.stage_assessmentid),
          entity: 'TraineeSignoff',
          ...record,
        } satisfies z.input<typeof traineeSignoffItemSchema>,
        ConditionExpression: opening
          ? 'attribute_not_exists(pk) OR NOT (#state IN (:requested, :responded))'
          : 'signoff_requestid = :id',
        ExpressionAttributeNames: opening ? { '#state': 'state' } : undefined,
        ExpressionAttributeValues: opening
          ? { ':requested': 'requested', ':responded': 'responded' }
          : { ':id': request.signoff_requestid },
      },
    },
  };
}

export async function getSignoffRequest(signoff_requestid: number): Promise<SignoffRequestRecord | undefined> {
  const item = await getItem(requestKey(signoff_requestid), { consistent: true });
  return item ? requestFromItem(item) : undefined;
}

export async function getSignoffRequests(ids: number[]): Promise<SignoffRequestRecord[]> {
  return (await batchGetInOrder(ids.map(requestKey))).map(requestFromItem);
}

export async function getTraineeSignoff(
  userid: number,
  stage_assessmentid: number,
): Promise<TraineeSignoffRecord | undefined> {
  const item = await getItem(traineeKey(userid, stage_assessmentid), { consistent: true });
  return item ? recordFrom(traineeSignoffItemSchema, item) : undefined;
}

export async function getTraineeSignoffs(
  pairs: Array<{ userid: number; stage_assessmentid: number }>,
): Promise<TraineeSignoffRecord[]> {
  return (await batchGetInOrder(pairs.map((pair) => traineeKey(pair.userid, pair.stage_assessmentid)))).map(
    recordsOf(traineeSignoffItemSchema),
  );
}

/** Requests awaiting a response from the members of a team (bounded: open requests only). */
export async function listPendingForTeam(teamid: number): Promise<SignoffRequestRecord[]> {
  return (await queryAll({ index: INDEXES.gsi1, partition: `SIGNOFFS#PENDING#TEAM#${teamid}` })).map(requestFromItem);
}

/** The trainee's answered, unacknowledged requests, oldest first. */
export async function listUnacknowledged(
  userid: number,
  page: { limit: number; offset: number },
): Promise<SignoffRequestRecord[]> {
  return (await queryPage({ index: INDEXES.gsi2, partition: `SIGNOFFS#UNACK#USER#${userid}` }, page)).map(
    requestFromItem,
  );
}

export async function putFinalizeToken(hash: string, token: FinalizeTokenRecord): Promise<void> {
  if (
    !(await putItem(
      { ...tokenKey(hash), entity: 'SignoffFinalizeToken', [TTL_ATTRIBUTE]: token.expires, ...token } satisfies z.input<
        typeof signoffFinalizeTokenItemSchema
      >,
      { ifAbsent: true },
    ))
  ) {
    throw new Error('A finalize token with this hash exists already');
  }
}

/** Takes the token out (single use): the record if it existed, whether or not it is expired. */
export async function consumeFinalizeToken(hash: string): Promise<FinalizeTokenRecord | undefined> {
  const result = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: tokenKey(hash), ReturnValues: 'ALL_OLD' }),
  );
  return result.Attributes ? recordFrom(signoffFinalizeTokenItemSchema, result.Attributes) : undefined;
}
