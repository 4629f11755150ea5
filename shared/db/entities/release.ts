/**
 * Releases: which revision of a document (guide or wiki) is released, as version MAJOR.MINOR.
 * - Release: pk RELEASE#<releaseid> / sk RELEASE; in gsi1 RELEASES#<doctype>#<docid> (one
 *   document's releases) and gsi2 RELEASES#<doctype> (every release of that doctype), both
 *   sorted: a document's by version (padded MAJOR.MINOR), all releases by padded releaseid.
 * - Version head: pk RELEASEHEAD#<doctype>#<docid> / sk HEAD {major, minor}: the last version
 *   handed out. A release moves it with a condition on the values read, in the same transaction,
 *   so two concurrent releases never get one version. Deleting a release keeps the head, so a
 *   version number is never reused.
 */
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { isConditionFailed } from '../retry.ts';
import { padId, withoutKeys } from '../keys.ts';
import { INDEXES } from '../table.ts';
import { queryAll, queryFirst, queryPage, type PageQuery } from '../paging.ts';
import { transactWrite, type LabelledWrite } from '../transactions.ts';

export type ReleaseDoctype = 'guide' | 'wiki';
export type ReleaseType = 'major' | 'minor';

export interface ReleaseRecord {
  releaseid: number;
  doctype: ReleaseDoctype;
  docid: number;
  revisionid: number;
  /** "MAJOR.MINOR", e.g. "2.1". */
  version: string;
  major: number;
  minor: number;
  release_type: ReleaseType;
  notes: string;
  date: number;
  /** Who released it. */
  userid: number;
  langid: string;
}

export interface VersionHead {
  major: number;
  minor: number;
  /** False when the document was never released. */
  exists: boolean;
}

function releaseKey(releaseid: number) {
  return { pk: `RELEASE#${releaseid}`, sk: 'RELEASE' };
}

function headKey(doctype: ReleaseDoctype, docid: number) {
  return { pk: `RELEASEHEAD#${doctype}#${docid}`, sk: 'HEAD' };
}

function versionSortKey(release: Pick<ReleaseRecord, 'major' | 'minor'>): string {
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

export function releaseFromItem(item: Record<string, unknown>): ReleaseRecord {
  return withoutKeys(item) as unknown as ReleaseRecord;
}

/** The version a new release of this type gets after `head`: major → (M+1).0, minor → M.(m+1). */
export function nextVersion(head: Pick<VersionHead, 'major' | 'minor'>, type: ReleaseType): { major: number; minor: number; version: string } {
  const major = type === 'major' ? head.major + 1 : head.major;
  const minor = type === 'major' ? 0 : head.minor + 1;
  return { major, minor, version: `${major}.${minor}` };
}

export async function getVersionHead(doctype: ReleaseDoctype, docid: number): Promise<VersionHead> {
  const item = await getItem(headKey(doctype, docid), { consistent: true });
  return item ? { major: Number(item.major), minor: Number(item.minor), exists: true } : { major: 0, minor: 0, exists: false };
}

/** The writes of a new release: the release item and its document's head moved from `head`. */
export function releaseCreateWrites(release: ReleaseRecord, head: VersionHead): LabelledWrite[] {
  const label = `head:${release.doctype}#${release.docid}`;
  return [
    {
      label: `release:${release.releaseid}`,
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...releaseKey(release.releaseid),
            entity: 'Release',
            [INDEXES.gsi1.pk]: `RELEASES#${release.doctype}#${release.docid}`,
            [INDEXES.gsi1.sk]: versionSortKey(release),
            [INDEXES.gsi2.pk]: `RELEASES#${release.doctype}`,
            [INDEXES.gsi2.sk]: padId(release.releaseid),
            ...release,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
    {
      label,
      item: {
        Put: {
          TableName: tableName(),
          Item: { ...headKey(release.doctype, release.docid), entity: 'ReleaseHead', major: release.major, minor: release.minor },
          ConditionExpression: head.exists ? 'major = :major AND minor = :minor' : 'attribute_not_exists(pk)',
          ExpressionAttributeValues: head.exists ? { ':major': head.major, ':minor': head.minor } : undefined,
        },
      },
    },
  ];
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

/** Deletes a release; false when there was none. */
export async function deleteRelease(releaseid: number): Promise<boolean> {
  const result = await db().send(new DeleteCommand({ TableName: tableName(), Key: releaseKey(releaseid), ReturnValues: 'ALL_OLD' }));
  return Boolean(result.Attributes);
}

/** The newest release of a document (the highest version), if any. */
export async function latestRelease(doctype: ReleaseDoctype, docid: number): Promise<ReleaseRecord | undefined> {
  const item = await queryFirst({ ...documentReleasesCollection(doctype, docid), descending: true });
  return item ? releaseFromItem(item) : undefined;
}

/**
 * A document's releases, newest first. Without a page: all of them (a document has few
 * releases; bounded by how often people release).
 */
export async function listReleases(doctype: ReleaseDoctype, docid: number, page?: { limit: number; offset: number }): Promise<ReleaseRecord[]> {
  const query = { ...documentReleasesCollection(doctype, docid), descending: true };
  const items = page ? await queryPage(query, page) : await queryAll(query);
  return items.map(releaseFromItem);
}
