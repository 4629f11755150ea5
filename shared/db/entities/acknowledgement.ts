/**
 * Read-and-understood acknowledgements (docs/competency.md).
 * - Acknowledgement: pk ACK#<releaseid> / sk USER#<padded userid>: one person asked to acknowledge
 *   one release. In gsi1 ACKS#USER#<userid> (`<status>#<padded due date>#<padded releaseid>`: a
 *   person's pending ones, soonest due first) and gsi2 ACKS#DOC#<doctype>#<docid>
 *   (`<status>#<padded releaseid>#<padded userid>`: a document's). Signing moves status
 *   pending → signed on condition it is pending, with the audit record, in one transaction.
 * - AcknowledgedVersion: pk USER#<userid> / sk ACKED#<doctype>#<padded docid>: the newest release
 *   of the document the person acknowledged (the stage rule's `acknowledged` fact, batch-read).
 * - RetrainingMark: pk RETRAIN#<doctype>#<docid> / sk MARK: the newest release of the document its
 *   author marked as needing retraining (the `retraining` fact).
 */
import * as z from 'zod/mini';
import { authenticatedBySchema } from '../../domain/signature-auth.ts';
import { tableName } from '../client.ts';
import { getItem, putItem } from '../items.ts';
import { padId } from '../keys.ts';
import { INDEXES } from '../table.ts';
import { queryAll, queryPage, type Page, type PageQuery } from '../paging.ts';
import { batchGetInOrder } from '../batch.ts';
import { TransactionConditionFailed, transactWrite, type LabelledWrite } from '../transactions.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import { isNewerVersion, type ReleaseVersion } from '../../domain/stage-status.ts';

const id = z.int().check(z.positive());
const doctype = z.enum(['guide', 'wiki']);
export type AckDoctype = z.output<typeof doctype>;

export const ACK_REASONS = ['trainee', 'skill', 'audience'] as const;

export const acknowledgementItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('Acknowledgement'),
  gsi1pk: z.string(),
  gsi1sk: z.string(),
  gsi2pk: z.string(),
  gsi2sk: z.string(),
  releaseid: id,
  doctype,
  docid: id,
  userid: id,
  version: z.string(),
  major: z.int(),
  minor: z.int(),
  revisionid: z.int(),
  /** The release the person last completed or acknowledged, the diff's other side (null: none). */
  base_version: z.nullable(z.string()),
  base_revisionid: z.nullable(z.int()),
  /** Why the person is concerned: a course stage's trainee, a holder of a skill, the author's audience. */
  reasons: z.array(z.enum(ACK_REASONS)),
  created_date: z.number(),
  due_date: z.number(),
  /** `superseded`: the person completed the document on this release or a newer one before signing. */
  status: z.enum(['pending', 'signed', 'superseded']),
  superseded_date: z.optional(z.number()),
  signed_date: z.nullable(z.number()),
  /** How the signature was made (password: the signer entered it for this signature). */
  signature: z.nullable(
    z.object({
      meaning: z.literal('acknowledged'),
      method: z.enum(['password']),
      /** How the signer proved themselves (decision 237; none on older signatures: password). */
      authenticated_by: z.optional(authenticatedBySchema),
    }),
  ),
  /** The device's guid the signature was sent with (decision 224), when it sent one. */
  client_guid: z.optional(z.string()),
  /** The steps the release marked for a supervisor's countersignature when the person signed (none: absent). */
  countersign_stepids: z.optional(z.array(id)),
  /** The supervisor's countersignature; until it is there a signature with countersign steps is not complete. */
  countersignature: z.optional(
    z.object({
      userid: id,
      date: z.number(),
      meaning: z.literal('countersigned'),
      method: z.enum(['password']),
      comment: z.string(),
      /** How the supervisor proved themselves (decision 237; none: password). */
      authenticated_by: z.optional(authenticatedBySchema),
    }),
  ),
});

/** The steps of a release its author marked as needing a supervisor's countersignature. */
export const countersignStepsItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('STEPS'),
  entity: z.literal('CountersignSteps'),
  releaseid: id,
  stepids: z.array(id),
  userid: id,
  date: z.number(),
});
export type CountersignStepsRecord = StoredRecord<typeof countersignStepsItemSchema>;
export const countersignKey = (releaseid: number) => ({ pk: `ACKCS#${releaseid}`, sk: 'STEPS' as const });

export async function getCountersignSteps(releaseid: number): Promise<CountersignStepsRecord | undefined> {
  const item = await getItem(countersignKey(releaseid), { consistent: true });
  return item ? recordFrom(countersignStepsItemSchema, item) : undefined;
}

export async function putCountersignSteps(record: CountersignStepsRecord): Promise<void> {
  await putItem({ ...countersignKey(record.releaseid), entity: 'CountersignSteps', ...record });
}

/** A pending acknowledgement the person's completion made moot (on condition it is still pending). */
export function acknowledgementSupersedeWrite(superseded: AcknowledgementRecord): LabelledWrite {
  return {
    label: 'acknowledgement',
    item: {
      Put: {
        TableName: tableName(),
        Item: ackItem(superseded),
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': 'pending' },
      },
    },
  };
}

/** Countersigning: the signed acknowledgement (on condition it is still not countersigned). */
export function acknowledgementCountersignWrite(countersigned: AcknowledgementRecord): LabelledWrite {
  return {
    label: 'acknowledgement',
    item: {
      Put: {
        TableName: tableName(),
        Item: ackItem(countersigned),
        ConditionExpression: '#status = :signed AND attribute_not_exists(countersignature)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':signed': 'signed' },
      },
    },
  };
}

export const acknowledgedVersionItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('AcknowledgedVersion'),
  userid: id,
  doctype,
  docid: id,
  releaseid: id,
  major: z.int(),
  minor: z.int(),
  date: z.number(),
});

export const retrainingMarkItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('MARK'),
  entity: z.literal('RetrainingMark'),
  doctype,
  docid: id,
  releaseid: id,
  major: z.int(),
  minor: z.int(),
  userid: id,
  date: z.number(),
});

export type AcknowledgementRecord = StoredRecord<typeof acknowledgementItemSchema>;
export type AcknowledgedVersionRecord = StoredRecord<typeof acknowledgedVersionItemSchema>;
export type RetrainingMarkRecord = StoredRecord<typeof retrainingMarkItemSchema>;

export const ackKey = (releaseid: number, userid: number) => ({ pk: `ACK#${releaseid}`, sk: `USER#${padId(userid)}` });
export const ackedKey = (userid: number, doc: { doctype: AckDoctype; docid: number }) => ({
  pk: `USER#${userid}`,
  sk: `ACKED#${doc.doctype}#${padId(doc.docid)}`,
});
export const markKey = (doc: { doctype: AckDoctype; docid: number }) => ({
  pk: `RETRAIN#${doc.doctype}#${doc.docid}`,
  sk: 'MARK',
});

/** The stored item of an acknowledgement (its keys and index keys); exported for seeding benches. */
export function ackItem(ack: AcknowledgementRecord) {
  return {
    ...ackKey(ack.releaseid, ack.userid),
    entity: 'Acknowledgement',
    [INDEXES.gsi1.pk]: `ACKS#USER#${ack.userid}`,
    [INDEXES.gsi1.sk]: `${ack.status}#${padId(ack.due_date)}#${padId(ack.releaseid)}`,
    [INDEXES.gsi2.pk]: `ACKS#DOC#${ack.doctype}#${ack.docid}`,
    [INDEXES.gsi2.sk]: `${ack.status}#${padId(ack.releaseid)}#${padId(ack.userid)}`,
    ...ack,
  };
}

/**
 * A new acknowledgement, with `extra` writes in its transaction (its notices' queue items);
 * false when the person was already asked for this release (nothing is written).
 */
export async function insertAcknowledgement(ack: AcknowledgementRecord, extra: LabelledWrite[] = []): Promise<boolean> {
  if (extra.length === 0) return putItem(ackItem(ack), { ifAbsent: true });
  try {
    await transactWrite([
      {
        label: 'acknowledgement',
        item: { Put: { TableName: tableName(), Item: ackItem(ack), ConditionExpression: 'attribute_not_exists(pk)' } },
      },
      ...extra,
    ]);
    return true;
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('acknowledgement')) return false;
    throw error;
  }
}

/** Signing: the acknowledgement (if still pending) and the person's newest acknowledged version (null: not yet). */
export function acknowledgementSignWrites(
  signed: AcknowledgementRecord,
  acked: AcknowledgedVersionRecord | null,
): LabelledWrite[] {
  const writes: LabelledWrite[] = [
    {
      label: 'acknowledgement',
      item: {
        Put: {
          TableName: tableName(),
          Item: ackItem(signed),
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':pending': 'pending' },
        },
      },
    },
  ];
  if (acked) writes.push(acknowledgedVersionWrite(acked));
  return writes;
}

/** The person's newest acknowledged version moves forward to `acked` (an older one never hides a newer). */
export function acknowledgedVersionWrite(acked: AcknowledgedVersionRecord): LabelledWrite {
  return {
    label: 'acknowledged-version',
    item: {
      Put: {
        TableName: tableName(),
        Item: { ...ackedKey(acked.userid, acked), entity: 'AcknowledgedVersion', ...acked },
        // Only ever forward: an older release signed late does not hide a newer one.
        ConditionExpression: 'attribute_not_exists(pk) OR #major < :major OR (#major = :major AND #minor < :minor)',
        ExpressionAttributeNames: { '#major': 'major', '#minor': 'minor' },
        ExpressionAttributeValues: { ':major': acked.major, ':minor': acked.minor },
      },
    },
  };
}

export async function getAcknowledgement(releaseid: number, userid: number, consistent = true) {
  const item = await getItem(ackKey(releaseid, userid), { consistent });
  return item ? recordFrom(acknowledgementItemSchema, item) : undefined;
}

/** Acknowledgements by (release, person), in one BatchGet per 100 (missing ones: absent). */
export async function getAcknowledgements(
  pairs: Array<{ releaseid: number; userid: number }>,
): Promise<AcknowledgementRecord[]> {
  return (await batchGetInOrder(pairs.map((pair) => ackKey(pair.releaseid, pair.userid)))).map(
    recordsOf(acknowledgementItemSchema),
  );
}

/** Everyone asked to acknowledge a release (bounded by the people concerned). */
export async function releaseAcknowledgements(releaseid: number): Promise<AcknowledgementRecord[]> {
  return (await queryAll({ partition: `ACK#${releaseid}`, consistent: true })).map(
    recordsOf(acknowledgementItemSchema),
  );
}

export function userPendingCollection(userid: number): PageQuery {
  return { index: INDEXES.gsi1, partition: `ACKS#USER#${userid}`, sortPrefix: 'pending#' };
}

export function documentPendingCollection(doc: { doctype: AckDoctype; docid: number }): PageQuery {
  return { index: INDEXES.gsi2, partition: `ACKS#DOC#${doc.doctype}#${doc.docid}`, sortPrefix: 'pending#' };
}

export async function acknowledgementsPage(query: PageQuery, page: Page): Promise<AcknowledgementRecord[]> {
  return (await queryPage(query, page)).map(recordsOf(acknowledgementItemSchema));
}

export async function acknowledgementsAll(query: PageQuery): Promise<AcknowledgementRecord[]> {
  return (await queryAll(query)).map(recordsOf(acknowledgementItemSchema));
}

/** The newest acknowledged version per (user, document) asked for (missing pairs: none). */
export async function getAcknowledgedVersions(
  pairs: Array<{ userid: number; doctype: AckDoctype; docid: number }>,
): Promise<AcknowledgedVersionRecord[]> {
  return (await batchGetInOrder(pairs.map((pair) => ackedKey(pair.userid, pair)))).map(
    recordsOf(acknowledgedVersionItemSchema),
  );
}

/**
 * The record that moves the person of `ack` forward to its release, dated `date`; null when they
 * already acknowledged that version or a newer one.
 */
export async function acknowledgedVersionAfter(
  ack: AcknowledgementRecord,
  date: number,
): Promise<AcknowledgedVersionRecord | null> {
  const [known] = await getAcknowledgedVersions([{ userid: ack.userid, doctype: ack.doctype, docid: ack.docid }]);
  if (known && !isNewerVersion(ack, known)) return null;
  const { userid, doctype, docid, releaseid, major, minor } = ack;
  return { userid, doctype, docid, releaseid, major, minor, date };
}

export async function getRetrainingMarks(
  docs: Array<{ doctype: AckDoctype; docid: number }>,
): Promise<RetrainingMarkRecord[]> {
  return (await batchGetInOrder(docs.map(markKey))).map(recordsOf(retrainingMarkItemSchema));
}

/** Marks a release as needing retraining; only forward (a newer mark stays). False when a newer one is there. */
export function retrainingMarkWrite(mark: RetrainingMarkRecord): LabelledWrite {
  return {
    label: 'retraining-mark',
    item: {
      Put: {
        TableName: tableName(),
        Item: { ...markKey(mark), entity: 'RetrainingMark', ...mark },
        ConditionExpression: 'attribute_not_exists(pk) OR #major < :major OR (#major = :major AND #minor <= :minor)',
        ExpressionAttributeNames: { '#major': 'major', '#minor': 'minor' },
        ExpressionAttributeValues: { ':major': mark.major, ':minor': mark.minor },
      },
    },
  };
}

export const versionOf = (record: { major: number; minor: number }): ReleaseVersion => ({
  major: record.major,
  minor: record.minor,
});

export { transactWrite as writeAcknowledgementChange };
