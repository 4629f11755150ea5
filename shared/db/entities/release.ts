/**
 * Releases: which revision of a document (guide or wiki) is released, as version MAJOR.MINOR.
 * - Release: pk RELEASE#<releaseid> / sk RELEASE; in gsi1 RELEASES#<doctype>#<docid> (one
 *   document's releases) and gsi2 RELEASES#<doctype> (every release of that doctype), both
 *   sorted: a document's by version (padded MAJOR.MINOR), all releases by padded releaseid.
 *   A release that is not released (pending approval, rejected, superseded) has no version yet;
 *   its gsi1sk is `~<padded releaseid>`, which sorts after every version, so the current release
 *   is the highest gsi1sk below `~` and one Query with Limit 1 still finds it.
 * - Approval (docs/compliance.md): a release of a document governed by an approval process is
 *   written `pending_approval` with its approval request, and changes state only in the
 *   transaction that ends that request (released: version taken from the head then; rejected;
 *   superseded), each on condition that it is still pending.
 * - Version head: pk RELEASEHEAD#<doctype>#<docid> / sk HEAD {major, minor}: the last version
 *   handed out. A release moves it with a condition on the values read, in the same transaction,
 *   so two concurrent releases never get one version. Deleting a release keeps the head, so a
 *   version number is never reused.
 */
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { isConditionFailed } from '../retry.ts';
import { padId } from '../keys.ts';
import { recordFrom, type StoredRecord } from '../stored-item.ts';
import { INDEXES } from '../table.ts';
import { queryAll, queryPage, type PageQuery } from '../paging.ts';
import { transactWrite, type LabelledWrite } from '../transactions.ts';
import { outboxPut } from './outbox.ts';
import { releasedEvent } from '../../domain/events/content-events.ts';
import * as z from 'zod/mini';
import { serviceAuthorSchema } from './api-token.ts';

export type ReleaseDoctype = 'guide' | 'wiki';
export type ReleaseType = 'major' | 'minor';

export const RELEASE_STATUSES = ['released', 'pending_approval', 'rejected', 'superseded'] as const;
export type ReleaseStatus = (typeof RELEASE_STATUSES)[number];
/** How a pending release ends: with its approval request's outcome. */
export type ReleaseEnding = Exclude<ReleaseStatus, 'pending_approval'>;

/** A release that is released: it has a version. */
export type CurrentRelease = ReleaseRecord & { status: 'released'; version: string; major: number; minor: number };

export interface VersionHead {
  major: number;
  minor: number;
  /** False when the document was never released. */
  exists: boolean;
}

export function releaseKey(releaseid: number) {
  return { pk: `RELEASE#${releaseid}`, sk: 'RELEASE' as const };
}

export function headKey(doctype: ReleaseDoctype, docid: number) {
  return { pk: `RELEASEHEAD#${doctype}#${docid}`, sk: 'HEAD' as const };
}

function versionSortKey(release: { major: number; minor: number }): string {
  return `${padId(release.major)}.${padId(release.minor)}`;
}

/** One document's releases by version, lowest first (descending: the newest version first). */
export function documentReleasesCollection(doctype: ReleaseDoctype, docid: number): PageQuery {
  return { index: INDEXES.gsi1, partition: `RELEASES#${doctype}#${docid}` };
}

/** Every release of a doctype, oldest first. */
export function allReleasesCollection(doctype: ReleaseDoctype): PageQuery {
  return { index: INDEXES.gsi2, partition: `RELEASES#${doctype}` };
}

/** Releases written before approvals could hold them back were all released when made. */
export function releaseFromItem(item: Record<string, unknown>): ReleaseRecord {
  const record = recordFrom(storedReleaseSchema, item);
  return {
    ...record,
    status: record.status ?? 'released',
    release_date: record.release_date === undefined ? record.date : record.release_date,
    approval_requestid: record.approval_requestid ?? null,
  };
}

/** gsi1sk of a release not released: after every version (see the header). */
const UNRELEASED_SORT_PREFIX = '~';

function unreleasedSortKey(releaseid: number): string {
  return `${UNRELEASED_SORT_PREFIX}${padId(releaseid)}`;
}

/** The version a new release of this type gets after `head`: major → (M+1).0, minor → M.(m+1). */
export function nextVersion(
  head: Pick<VersionHead, 'major' | 'minor'>,
  type: ReleaseType,
): { major: number; minor: number; version: string } {
  const major = type === 'major' ? head.major + 1 : head.major;
  const minor = type === 'major' ? 0 : head.minor + 1;
  return { major, minor, version: `${major}.${minor}` };
}

export async function getVersionHead(doctype: ReleaseDoctype, docid: number): Promise<VersionHead> {
  const item = await getItem(headKey(doctype, docid), { consistent: true });
  const head = item ? recordFrom(releaseHeadItemSchema, item) : undefined;
  return head ? { major: head.major, minor: head.minor, exists: true } : { major: 0, minor: 0, exists: false };
}

/** A Release as releaseItem puts it and the ending / notes updates leave it (plain). */
export const releaseItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('RELEASE'),
  entity: z.literal('Release'),
  gsi1pk: z.string(),
  gsi1sk: z.string(),
  gsi2pk: z.string(),
  gsi2sk: z.string(),
  releaseid: z.int().check(z.positive()),
  doctype: z.enum(['guide', 'wiki']),
  docid: z.int().check(z.positive()),
  revisionid: z.int(),
  status: z.enum(RELEASE_STATUSES),
  /** "MAJOR.MINOR", e.g. "2.1"; null until released. */
  version: z.nullable(z.string()),
  major: z.nullable(z.int()),
  minor: z.nullable(z.int()),
  release_type: z.enum(['major', 'minor']),
  notes: z.string(),
  /** When it was asked for (made, for a release needing no approval). */
  date: z.number(),
  /** When it became released; null until then. */
  release_date: z.nullable(z.number()),
  /** The approval request it waits or waited for; null when none was needed. */
  approval_requestid: z.nullable(z.int()),
  /** Who released it (asked for it); 0 with `service_author` for a site API token (decision 244). */
  userid: z.int(),
  service_author: z.optional(serviceAuthorSchema),
  langid: z.string(),
});

export type ReleaseRecord = StoredRecord<typeof releaseItemSchema>;

/**
 * A Release as stored: items written before approvals have no status, release date or request. The
 * registry checks imported items with it too, so a site file from such a table imports as it reads.
 */
export const storedReleaseSchema = z.extend(releaseItemSchema, {
  status: z.optional(releaseItemSchema.shape.status),
  release_date: z.optional(releaseItemSchema.shape.release_date),
  approval_requestid: z.optional(releaseItemSchema.shape.approval_requestid),
});

export const releaseHeadItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('HEAD'),
  entity: z.literal('ReleaseHead'),
  major: z.int(),
  minor: z.int(),
});

function releaseItem(release: ReleaseRecord): z.input<typeof releaseItemSchema> {
  return {
    ...releaseKey(release.releaseid),
    entity: 'Release',
    [INDEXES.gsi1.pk]: `RELEASES#${release.doctype}#${release.docid}`,
    [INDEXES.gsi1.sk]:
      release.status === 'released' ? versionSortKey(release as CurrentRelease) : unreleasedSortKey(release.releaseid),
    [INDEXES.gsi2.pk]: `RELEASES#${release.doctype}`,
    [INDEXES.gsi2.sk]: padId(release.releaseid),
    ...release,
  };
}

/**
 * The document's version head moved from `head` to `version` (label `version-head:<doctype>#<docid>`; not `head:`,
 * which audit appends retry on).
 */
export function headMoveWrite(
  doctype: ReleaseDoctype,
  docid: number,
  head: VersionHead,
  version: { major: number; minor: number },
): LabelledWrite {
  return {
    label: `version-head:${doctype}#${docid}`,
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...headKey(doctype, docid),
          entity: 'ReleaseHead',
          major: version.major,
          minor: version.minor,
        } satisfies z.input<typeof releaseHeadItemSchema>,
        ConditionExpression: head.exists ? 'major = :major AND minor = :minor' : 'attribute_not_exists(pk)',
        ExpressionAttributeValues: head.exists ? { ':major': head.major, ':minor': head.minor } : undefined,
      },
    },
  };
}

/** A release item in whatever status it is (pure: a migration carries released and ended ones alike). */
export function releasePut(release: ReleaseRecord): LabelledWrite {
  return {
    label: `release:${release.releaseid}`,
    item: {
      Put: { TableName: tableName(), Item: releaseItem(release), ConditionExpression: 'attribute_not_exists(pk)' },
    },
  };
}

/** The writes of a new released release: the release item and its document's head moved from `head`. */
export function releaseCreateWrites(release: CurrentRelease, head: VersionHead): LabelledWrite[] {
  return [
    releasePut(release),
    headMoveWrite(release.doctype, release.docid, head, release),
    outboxPut(releasedEvent(release), `event:release:${release.releaseid}`),
  ];
}

/** A new release waiting for its approval request (no version, the head untouched). */
export function pendingReleaseWrite(release: ReleaseRecord): LabelledWrite {
  if (release.status !== 'pending_approval' || release.approval_requestid === null)
    throw new Error('A pending release waits for an approval request');
  return {
    label: `release:${release.releaseid}`,
    item: {
      Put: { TableName: tableName(), Item: releaseItem(release), ConditionExpression: 'attribute_not_exists(pk)' },
    },
  };
}

/**
 * Ends a pending release with its request's outcome: released at the next version after `head`
 * (moving the head) on `at`, or rejected / superseded (kept for the record, no version). The
 * release must still be pending (label `release:<id>`). Returns the writes and the record after.
 */
export function pendingReleaseEndWrites(
  release: ReleaseRecord,
  ending: ReleaseEnding,
  head: VersionHead,
  at: number,
): { writes: LabelledWrite[]; after: ReleaseRecord } {
  const released = ending === 'released' ? nextVersion(head, release.release_type) : null;
  const after: ReleaseRecord = released
    ? { ...release, status: 'released', ...released, release_date: at }
    : { ...release, status: ending };
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ':status': after.status, ':pending': 'pending_approval' };
  let update = 'SET #status = :status';
  if (released) {
    names['#g1sk'] = INDEXES.gsi1.sk;
    Object.assign(values, {
      ':version': released.version,
      ':major': released.major,
      ':minor': released.minor,
      ':at': at,
      ':g1sk': versionSortKey(released),
    });
    update += ', version = :version, major = :major, minor = :minor, release_date = :at, #g1sk = :g1sk';
  }
  const writes: LabelledWrite[] = [
    {
      label: `release:${release.releaseid}`,
      item: {
        Update: {
          TableName: tableName(),
          Key: releaseKey(release.releaseid),
          UpdateExpression: update,
          ConditionExpression: 'attribute_exists(pk) AND #status = :pending',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
    },
  ];
  if (released)
    writes.push(
      headMoveWrite(release.doctype, release.docid, head, released),
      outboxPut(releasedEvent(after), `event:release:${release.releaseid}`),
    );
  return { writes, after };
}

export async function insertReleases(writes: LabelledWrite[]): Promise<void> {
  await transactWrite(writes);
}

export async function getRelease(releaseid: number): Promise<ReleaseRecord | undefined> {
  const item = await getItem(releaseKey(releaseid));
  return item ? releaseFromItem(item) : undefined;
}

/** Changes a release's notes; undefined when it no longer exists. */
export async function updateReleaseNotes(releaseid: number, notes: string): Promise<ReleaseRecord | undefined> {
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: releaseKey(releaseid),
        UpdateExpression: 'SET notes = :notes',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':notes': notes },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return releaseFromItem(result.Attributes!);
  } catch (error) {
    if (isConditionFailed(error)) return undefined;
    throw error;
  }
}

/**
 * Deletes a release unless it waits for approval (its request decides it); 'missing' when there
 * was none, 'pending' when it waits.
 */
export async function deleteRelease(releaseid: number): Promise<'deleted' | 'missing' | 'pending'> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: releaseKey(releaseid),
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#status) OR #status <> :pending)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': 'pending_approval' },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return 'deleted';
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    return (error as { Item?: unknown }).Item ? 'pending' : 'missing';
  }
}

/** The current release of a document (the highest released version), if any; pending ones do not count. */
export async function latestRelease(doctype: ReleaseDoctype, docid: number): Promise<CurrentRelease | undefined> {
  const query = documentReleasesCollection(doctype, docid);
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: query.index!.name,
      KeyConditionExpression: '#pk = :pk AND #sk < :unreleased',
      ExpressionAttributeNames: { '#pk': query.index!.pk, '#sk': query.index!.sk },
      ExpressionAttributeValues: { ':pk': query.partition, ':unreleased': UNRELEASED_SORT_PREFIX },
      ScanIndexForward: false,
      Limit: 1,
    }),
  );
  const item = result.Items?.[0];
  return item ? (releaseFromItem(item) as CurrentRelease) : undefined;
}

/**
 * A document's releases, newest first: those not released (pending first) by id, then the
 * released ones by version. Without a page: all of them (a document has few
 * releases; bounded by how often people release).
 */
export async function listReleases(
  doctype: ReleaseDoctype,
  docid: number,
  page?: { limit: number; offset: number },
): Promise<ReleaseRecord[]> {
  const query = { ...documentReleasesCollection(doctype, docid), descending: true };
  const items = page ? await queryPage(query, page) : await queryAll(query);
  return items.map(releaseFromItem);
}
