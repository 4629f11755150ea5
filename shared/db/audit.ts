/**
 * The one append-only audit writer. Each record is appended to the chain of every subject it
 * concerns (a user, a document ...): pk AUDIT#<subject> / sk SEQ#<padded seq>, and each
 * record's hash covers the previous record's hash, so editing or deleting a record breaks
 * the chain. The chain head (sk HEAD) moves with a condition on its seq, in the same
 * transaction, so two concurrent appends can never both claim one position.
 *
 * A record may also be listed site-wide (`listedIn`): its item then carries gsi2 keys of a
 * time-ordered listing (e.g. every stage completion event, decision 243), so the listing is the
 * chain's own record, written in the same put, and cannot disagree with it.
 */
import { tableName } from './client.ts';
import type { Caller } from '../domain/caller.ts';
import { getItem } from './items.ts';
import { queryCount, queryPage, type Page, type PageQuery } from './paging.ts';
import { INDEXES } from './table.ts';
import { padId } from './keys.ts';
import { nowSeconds } from '../clock.ts';
import { createItemWrite, transactWrite, type LabelledWrite } from './transactions.ts';
import { labelsIn, retryOnLostRace } from './retry.ts';
import { sha256Hex } from '../domain/secrets.ts';
import { canonicalJson } from '../domain/canonical-json.ts';
import type { Doctype } from '../domain/doctypes.ts';
import { parseStored, recordsOf, type StoredRecord } from './stored-item.ts';
import * as z from 'zod/mini';

export interface AuditEvent {
  /** e.g. user.impersonated, signoff.acknowledged */
  action: string;
  actor_userid: number | null;
  /** Set (with actor_userid null) when a site API token acted: the token's id (decision 227). */
  actor_tokenid?: string;
  /** Chains the record joins, e.g. ["USER#12", "GUIDE#7"]. */
  subjects: string[];
  /** What changed: free-form, e.g. { old: ..., new: ..., revisionid: ... }. */
  details: Record<string, unknown>;
  /** Set when the actor acted through an impersonation token. */
  impersonator_userid?: number | null;
  /** A site-wide listing the record joins (gsi2); not part of the record or its hash. */
  listedIn?: AuditListing;
}

/** Site-wide, time-ordered listings of audit records (gsi2 `AUDITLIST#<listing>`). */
export type AuditListing = 'stage-completions';

/**
 * The chains a record can join, one builder per kind of subject: the only place a subject is
 * spelled (a chain's items are pk AUDIT#<subject>), so a service names a subject, never builds
 * one (decision 189).
 */
export const auditSubject = {
  user: (userid: number) => `USER#${userid}`,
  team: (teamid: number) => `TEAM#${teamid}`,
  comment: (commentid: number) => `COMMENT#${commentid}`,
  signoff: (signoffRequestid: number) => `SIGNOFF#${signoffRequestid}`,
  /** GUIDE#<id> or WIKI#<id>. */
  document: (doctype: Doctype, docid: number) => `${doctype.toUpperCase()}#${docid}`,
  approvalProcess: (approvalProcessid: number) => `APPROVAL_PROCESS#${approvalProcessid}`,
  reviewSchedule: (prsid: number) => `PERIODIC_REVIEW_SCHEDULE#${prsid}`,
  skill: (skillid: number) => `SKILL#${skillid}`,
  /** Site-wide settings (training settings, docs/competency.md). */
  site: () => 'SITE',
  apiToken: (tokenid: string) => `API_TOKEN#${tokenid}`,
  /** The chain of whoever acts: a person's USER#, a site API token's API_TOKEN# (never USER#0). */
  actor: (caller: Caller) => (caller.service ? `API_TOKEN#${caller.service.tokenid}` : `USER#${caller.userid}`),
};

/** One record of a subject's hash chain, as appendWrites puts it. */
export const auditRecordItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('AuditRecord'),
  action: z.string(),
  actor_userid: z.nullable(z.int()),
  actor_tokenid: z.optional(z.string()),
  subjects: z.array(z.string()),
  details: z.record(z.string(), z.unknown()),
  impersonator_userid: z.optional(z.nullable(z.int())),
  gsi2pk: z.optional(z.string().check(z.startsWith('AUDITLIST#'))),
  gsi2sk: z.optional(z.string()),
  subject: z.string(),
  seq: z.int(),
  date: z.number(),
  previous_hash: z.string(),
  hash: z.string(),
});

/** A record as stored: the event (AuditEvent, without its listing) and its place in the chain. */
export type AuditRecord = StoredRecord<typeof auditRecordItemSchema>;

/** A chain's head: its last record's seq and hash. */
export const auditHeadItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('HEAD'),
  entity: z.literal('AuditHead'),
  seq: z.int(),
  hash: z.string(),
});

/** The items of one chain: its records (SEQ#...) and its head. */
export function chainKey<S extends string>(subject: string, sk: S) {
  return { pk: `AUDIT#${subject}`, sk };
}

/** The previous_hash of a chain's first record. */
export const AUDIT_GENESIS_HASH = '0'.repeat(64);

export function auditRecordHash(record: Omit<AuditRecord, 'hash'>): string {
  return sha256Hex(canonicalJson(record));
}

/** The seq and hash of a chain's last record ({0, genesis} for an empty chain). */
export async function chainHead(subject: string): Promise<{ seq: number; hash: string }> {
  const head = await getItem(chainKey(subject, 'HEAD'), { consistent: true });
  if (!head) return { seq: 0, hash: AUDIT_GENESIS_HASH };
  const { seq, hash } = parseStored(auditHeadItemSchema, head);
  return { seq, hash };
}

/** The gsi2 keys of a record in a listing: date order, then chain and position (unique). */
export function auditListingKeys(listing: AuditListing, record: Pick<AuditRecord, 'subject' | 'seq' | 'date'>) {
  return {
    [INDEXES.gsi2.pk]: `AUDITLIST#${listing}`,
    [INDEXES.gsi2.sk]: `${padId(record.date)}#${record.subject}#${padId(record.seq)}`,
  };
}

function appendWrites(
  subject: string,
  head: { seq: number; hash: string },
  { listedIn, ...event }: AuditEvent,
  date: number,
): LabelledWrite[] {
  const unsigned: Omit<AuditRecord, 'hash'> = {
    ...event,
    impersonator_userid: event.impersonator_userid ?? null,
    subject,
    seq: head.seq + 1,
    date,
    previous_hash: head.hash,
  };
  const record: AuditRecord = { ...unsigned, hash: auditRecordHash(unsigned) };
  return [
    createItemWrite(`record:${subject}`, {
      ...chainKey(subject, `SEQ#${padId(record.seq)}`),
      entity: 'AuditRecord',
      ...record,
      ...(listedIn ? auditListingKeys(listedIn, record) : {}),
    } satisfies z.input<typeof auditRecordItemSchema>),
    {
      label: `head:${subject}`,
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...chainKey(subject, 'HEAD'),
            entity: 'AuditHead',
            seq: record.seq,
            hash: record.hash,
          } satisfies z.input<typeof auditHeadItemSchema>,
          ConditionExpression: head.seq === 0 ? 'attribute_not_exists(pk)' : 'seq = :seq',
          ExpressionAttributeValues: head.seq === 0 ? undefined : { ':seq': head.seq },
        },
      },
    },
  ];
}

/** Labels of the chain writes: when only these fail, another append came first. */
export const AUDIT_CHAIN_LABELS = ['head:', 'record:'];

/** Appends an event to each subject's chain, retrying when another append won the race. */
export async function appendAudit(event: AuditEvent, extraWrites: LabelledWrite[] = []): Promise<void> {
  await retryOnLostRace(
    async () => {
      const date = nowSeconds();
      const heads = await Promise.all(event.subjects.map(chainHead));
      const writes = event.subjects.flatMap((subject, index) => appendWrites(subject, heads[index], event, date));
      await transactWrite([...writes, ...extraWrites]);
    },
    {
      attempts: 10,
      raceLabels: labelsIn(...AUDIT_CHAIN_LABELS),
      message: 'The audit trail kept changing while this change was recorded; try again',
    },
  );
}

/** A subject's records in order (for the audit history endpoints). */
export async function readAuditChain(subject: string, limit = 1000, afterSeq = 0): Promise<AuditRecord[]> {
  // Sort keys after SEQ#<afterSeq> are records only (the HEAD item sorts before them).
  const items = await queryPage(
    { partition: `AUDIT#${subject}`, sortAfter: `SEQ#${padId(afterSeq)}`, consistent: true },
    { limit, offset: 0 },
  );
  return items.map(recordsOf(auditRecordItemSchema));
}

/** A listing's records from `since` (inclusive) to `until` (exclusive), epoch seconds. */
function listingQuery(listing: AuditListing, range: { since?: number; until?: number }): PageQuery {
  const from = padId(range.since ?? 0);
  // '#' sorts before digits: every key of the second before `until` is below `<until>#`.
  const to = range.until === undefined ? '~' : `${padId(Math.max(0, range.until - 1))}#~`;
  return { index: INDEXES.gsi2, partition: `AUDITLIST#${listing}`, sortBetween: { from, to } };
}

/** One page of a listing, oldest first, and how many records the range holds. */
export async function readAuditListing(
  listing: AuditListing,
  range: { since?: number; until?: number },
  page: Page,
): Promise<{ records: AuditRecord[]; total: number }> {
  if (range.until !== undefined && range.until <= (range.since ?? 0)) return { records: [], total: 0 };
  const query = listingQuery(listing, range);
  const [items, total] = await Promise.all([queryPage(query, page), queryCount(query)]);
  return {
    records: items.map(recordsOf(auditRecordItemSchema)),
    total,
  };
}

/**
 * Lists a record written before its listing existed (the backfill of decision 243): only the
 * index keys are added, the record and its hash stay as they are. Idempotent.
 */
export async function addToAuditListing(listing: AuditListing, record: AuditRecord): Promise<void> {
  const keys = auditListingKeys(listing, record);
  await transactWrite([
    {
      label: `record:${record.subject}`,
      item: {
        Update: {
          TableName: tableName(),
          Key: chainKey(record.subject, `SEQ#${padId(record.seq)}`),
          UpdateExpression: 'SET #lpk = :lpk, #lsk = :lsk',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#lpk': INDEXES.gsi2.pk, '#lsk': INDEXES.gsi2.sk },
          ExpressionAttributeValues: { ':lpk': keys[INDEXES.gsi2.pk], ':lsk': keys[INDEXES.gsi2.sk] },
        },
      },
    },
  ]);
}
