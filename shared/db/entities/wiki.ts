/**
 * Wiki page: pk WIKI#<wikiid> / sk WIKI. Listed per namespace through gsi1
 * (gsi1pk WIKIS#<namespace>, gsi1sk <lower-case title>#<padded id>, so lists are alphabetical);
 * a page with a parent is also in its parent's children through gsi2
 * (gsi2pk WIKI_CHILDREN#<parent wikiid>, same sort key). The title is unique within a
 * namespace through the uniqueness item UNIQUE#WIKI_TITLE#<namespace>#<title>, which also
 * resolves a title to its wikiid. Every content change writes a snapshot,
 * pk WIKI#<wikiid> / sk REV#<padded revisionid>, in the same transaction, so revert and
 * releases can reach any earlier revision. A page counts its children (child_count), so a page
 * with children cannot be deleted, enforced by the delete's condition.
 */
import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { INDEXES } from '../table.ts';
import { queryAll, queryPage, type PageQuery } from '../paging.ts';
import { transactWrite, type LabelledWrite } from '../transactions.ts';
import { claimUnique, releaseUnique, uniqueKey } from '../uniqueness.ts';
import { revisionGuard } from '../revisions.ts';
import { canonicalTitle, WIKI_NAMESPACES, type WikiNamespace } from '../../domain/wiki-namespaces.ts';
import { parseStored, recordFrom, recordsOf, type StoredRecord, type StoredRecordAs } from '../stored-item.ts';
import * as z from 'zod/mini';
import { serviceAuthorSchema } from './api-token.ts';

const NO_CHILDREN = '(attribute_not_exists(child_count) OR child_count = :noChildren)';

/** The content fields a revision snapshot keeps. */
export type WikiContent = Pick<
  WikiRecord,
  | 'title'
  | 'display_title'
  | 'contents_raw'
  | 'excerpt'
  | 'description'
  | 'identification_raw'
  | 'flags'
  | 'table_of_contents'
>;

/** The fields GET …?display=hierarchy needs of every page of a namespace. */
export interface WikiNode {
  wikiid: number;
  title: string;
  display_title: string;
  parent_wikiid: number | null;
}

const NO_PARENT = 0;

/** The content fields a page and its snapshots share. */
const wikiContent = {
  wikiid: z.int().check(z.positive()),
  /** The current revision; every content change makes a new one. */
  revisionid: z.int(),
  title: z.string(),
  display_title: z.string(),
  contents_raw: z.string(),
  /** Plain text from the start of the contents, kept for list items (`text`). */
  excerpt: z.string(),
  description: z.string(),
  /** CATEGORY pages: how to tell this device/model apart (GET …/identification). */
  identification_raw: z.string(),
  flags: z.array(z.string()),
  table_of_contents: z.boolean(),
};

/** A Wiki item exactly as wikiCreateWrites and the replace/move updates leave it (plain). */
export const wikiItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('WIKI'),
  entity: z.literal('Wiki'),
  gsi1pk: z.string(),
  gsi1sk: z.string(),
  gsi2pk: z.optional(z.string()),
  gsi2sk: z.optional(z.string()),
  ...wikiContent,
  namespace: z.enum(WIKI_NAMESPACES),
  langid: z.string(),
  image: z.nullable(z.record(z.string(), z.unknown())),
  /** The userid who created the page. */
  author_userid: z.int(),
  /** Created by a site API token (author_userid 0): which one (decision 244). */
  service_author: z.optional(serviceAuthorSchema),
  /** The userid who made the current revision. */
  modified_by: z.int(),
  /** 0 for a page without parent. */
  parent_wikiid: z.int(),
  child_count: z.int(),
  created_date: z.number(),
  modified_date: z.number(),
});

/** As read (wikiFromItem): a parent id 0 (none) reads as null. */
export type WikiRecord = StoredRecordAs<typeof wikiItemSchema, { parent_wikiid: number | null }>;

/** The projection listWikiNodes reads. */
const wikiNodeSchema = z.pick(wikiItemSchema, { wikiid: true, title: true, display_title: true, parent_wikiid: true });

export const wikiRevisionItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('WikiRevision'),
  ...wikiContent,
  /** Who made this revision, and when. */
  userid: z.int(),
  date: z.number(),
  /** Set when this revision restored an earlier one. */
  reverted_from: z.nullable(z.int()),
});

export type WikiRevisionRecord = StoredRecord<typeof wikiRevisionItemSchema>;

export function wikiKey(wikiid: number) {
  return { pk: `WIKI#${wikiid}`, sk: 'WIKI' as const };
}

export function revisionKey(wikiid: number, revisionid: number) {
  return { pk: `WIKI#${wikiid}`, sk: `REV#${padId(revisionid)}` };
}

function titleSortKey(title: string, wikiid: number): string {
  return `${title.toLowerCase()}#${padId(wikiid)}`;
}

export function uniqueTitle(namespace: string, title: string): string {
  return `${namespace}#${title}`;
}

function indexAttributes(wiki: Pick<WikiRecord, 'wikiid' | 'namespace' | 'title' | 'parent_wikiid'>) {
  const sortKey = titleSortKey(wiki.title, wiki.wikiid);
  return {
    [INDEXES.gsi1.pk]: `WIKIS#${wiki.namespace}`,
    [INDEXES.gsi1.sk]: sortKey,
    ...(wiki.parent_wikiid
      ? { [INDEXES.gsi2.pk]: `WIKI_CHILDREN#${wiki.parent_wikiid}`, [INDEXES.gsi2.sk]: sortKey }
      : {}),
  };
}

/** A stored page item (e.g. the old item of a failed condition) as a record. */
export function wikiFromItem(item: Record<string, unknown>): WikiRecord {
  const record = recordFrom(wikiItemSchema, item);
  return {
    ...record,
    parent_wikiid: record.parent_wikiid || null,
    child_count: record.child_count,
  };
}

function revisionItem(
  wiki: WikiRecord,
  revision: { userid: number; date: number; reverted_from: number | null },
): LabelledWrite {
  const snapshot: WikiRevisionRecord = {
    wikiid: wiki.wikiid,
    revisionid: wiki.revisionid,
    title: wiki.title,
    display_title: wiki.display_title,
    contents_raw: wiki.contents_raw,
    excerpt: wiki.excerpt,
    description: wiki.description,
    identification_raw: wiki.identification_raw,
    flags: wiki.flags,
    table_of_contents: wiki.table_of_contents,
    ...revision,
  };
  return {
    label: 'revision',
    item: {
      Put: {
        TableName: tableName(),
        Item: { ...revisionKey(wiki.wikiid, wiki.revisionid), entity: 'WikiRevision', ...snapshot } satisfies z.input<
          typeof wikiRevisionItemSchema
        >,
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

/** Adds `delta` to a page's child count; the page must exist (label 'parent'). */
function childCountWrite(parentid: number, delta: number, label = 'parent'): LabelledWrite {
  return {
    label,
    item: {
      Update: {
        TableName: tableName(),
        Key: wikiKey(parentid),
        UpdateExpression: 'ADD child_count :delta',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':delta': delta },
      },
    },
  };
}

/**
 * Creates a page: the page, its title claim, its first revision and (with a parent) the
 * parent's child count, atomically. Fails with label WIKI_TITLE when the title is taken in the
 * namespace, 'parent' when the parent is gone.
 */
export async function insertWiki(wiki: WikiRecord): Promise<void> {
  await transactWrite(wikiCreateWrites(wiki));
}

/** The writes of insertWiki, for a caller that adds its own items to the transaction (courses). */
export function wikiCreateWrites(wiki: WikiRecord): LabelledWrite[] {
  const writes: LabelledWrite[] = [
    {
      label: 'wiki',
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...wikiKey(wiki.wikiid),
            entity: 'Wiki',
            ...indexAttributes(wiki),
            ...wiki,
            parent_wikiid: wiki.parent_wikiid ?? NO_PARENT,
          } satisfies z.input<typeof wikiItemSchema>,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
    claimUnique('WIKI_TITLE', uniqueTitle(wiki.namespace, wiki.title), { wikiid: wiki.wikiid }),
    revisionItem(wiki, { userid: wiki.modified_by, date: wiki.modified_date, reverted_from: null }),
  ];
  if (wiki.parent_wikiid) writes.push(childCountWrite(wiki.parent_wikiid, 1));
  return writes;
}

export async function getWiki(wikiid: number): Promise<WikiRecord | undefined> {
  const item = await getItem(wikiKey(wikiid));
  return item ? wikiFromItem(item) : undefined;
}

/**
 * The page with this title in the namespace. Titles are case-sensitive; underscores read as
 * spaces and whitespace collapses (canonicalTitle), so `iPhone_6` finds "iPhone 6".
 */
export async function getWikiByTitle(
  namespace: WikiNamespace | string,
  title: string,
): Promise<WikiRecord | undefined> {
  const canonical = canonicalTitle(title);
  const claim = await getItem(uniqueKey('WIKI_TITLE', uniqueTitle(namespace, canonical)));
  if (!claim) return undefined;
  const wiki = await getWiki(Number(claim.wikiid));
  // A rename in flight could leave the claim briefly ahead of the page: trust the page.
  return wiki && wiki.namespace === namespace && wiki.title === canonical ? wiki : undefined;
}

/**
 * Replaces a page's content with a new revision, guarded by the revision it was based on
 * (label 'wiki': stale or gone). A rename moves the title claim in the same transaction
 * (label WIKI_TITLE: the new title is taken).
 */
export async function updateWikiContent(
  before: WikiRecord,
  after: WikiRecord,
  expectedRevision: number,
  revision: { reverted_from: number | null },
): Promise<void> {
  await transactWrite(wikiContentUpdateWrites(before, after, expectedRevision, revision));
}

/** The writes of updateWikiContent, for a caller that adds its own items (courses). */
export function wikiContentUpdateWrites(
  before: WikiRecord,
  after: WikiRecord,
  expectedRevision: number,
  revision: { reverted_from: number | null },
): LabelledWrite[] {
  const guard = revisionGuard(expectedRevision);
  const fields: Partial<WikiRecord> = {
    title: after.title,
    display_title: after.display_title,
    contents_raw: after.contents_raw,
    excerpt: after.excerpt,
    description: after.description,
    identification_raw: after.identification_raw,
    flags: after.flags,
    table_of_contents: after.table_of_contents,
    revisionid: after.revisionid,
    modified_by: after.modified_by,
    modified_date: after.modified_date,
  };
  const names: Record<string, string> = { ...guard.ExpressionAttributeNames };
  const values: Record<string, unknown> = { ...guard.ExpressionAttributeValues };
  const sets = Object.entries({ ...fields, ...indexAttributes(after) }).map(([field, value], index) => {
    names[`#f${index}`] = field;
    values[`:v${index}`] = value;
    return `#f${index} = :v${index}`;
  });
  const writes: LabelledWrite[] = [
    {
      label: 'wiki',
      item: {
        Update: {
          TableName: tableName(),
          Key: wikiKey(after.wikiid),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: guard.ConditionExpression,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValuesOnConditionCheckFailure: guard.ReturnValuesOnConditionCheckFailure,
        },
      },
    },
    revisionItem(after, {
      userid: after.modified_by,
      date: after.modified_date,
      reverted_from: revision.reverted_from,
    }),
  ];
  if (before.title !== after.title) {
    writes.push(releaseUnique('WIKI_TITLE', uniqueTitle(before.namespace, before.title)));
    writes.push(claimUnique('WIKI_TITLE', uniqueTitle(after.namespace, after.title), { wikiid: after.wikiid }));
  }
  return writes;
}

/**
 * Deletes a page guarded by its revision and by having no children (label 'wiki'; the old
 * item tells which), releasing its title and leaving the parent's count one lower. Revision
 * snapshots stay: releases and audits may still name them.
 */
export async function deleteWiki(wiki: WikiRecord, expectedRevision: number): Promise<void> {
  await transactWrite(wikiDeleteWrites(wiki, expectedRevision));
}

/** The writes of deleteWiki, for a caller that adds its own items (courses). */
export function wikiDeleteWrites(wiki: WikiRecord, expectedRevision: number): LabelledWrite[] {
  const guard = revisionGuard(expectedRevision);
  const writes: LabelledWrite[] = [
    {
      label: 'wiki',
      item: {
        Delete: {
          TableName: tableName(),
          Key: wikiKey(wiki.wikiid),
          // Only a page without children goes.
          ConditionExpression: `${guard.ConditionExpression} AND ${NO_CHILDREN}`,
          ExpressionAttributeNames: guard.ExpressionAttributeNames,
          ExpressionAttributeValues: { ...guard.ExpressionAttributeValues, ':noChildren': 0 },
          ReturnValuesOnConditionCheckFailure: guard.ReturnValuesOnConditionCheckFailure,
        },
      },
    },
    releaseUnique('WIKI_TITLE', uniqueTitle(wiki.namespace, wiki.title)),
  ];
  if (wiki.parent_wikiid) {
    writes.push({
      label: 'parent',
      item: {
        Update: {
          TableName: tableName(),
          Key: wikiKey(wiki.parent_wikiid),
          UpdateExpression: 'ADD child_count :delta',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':delta': -1 },
        },
      },
    });
  }
  return writes;
}

/**
 * Moves a page under `newParent` (or to the top with null). `newAncestors` is the chain of
 * pages from the new parent up to the root as read by the caller; each must still have the
 * parent it had when read (labels 'ancestor:<id>'), so a concurrent move can never close a
 * cycle. The page itself must still have its old parent (label 'wiki'), and, when
 * `expectedRevision` is given, that revision.
 */
export async function moveWiki(
  wiki: WikiRecord,
  newParent: WikiRecord | null,
  newAncestors: WikiRecord[],
  expectedRevision?: number,
): Promise<void> {
  const moved = { ...wiki, parent_wikiid: newParent?.wikiid ?? null };
  const names: Record<string, string> = { '#parent': 'parent_wikiid' };
  const values: Record<string, unknown> = {
    ':oldParent': wiki.parent_wikiid ?? NO_PARENT,
    ':newParent': moved.parent_wikiid ?? NO_PARENT,
  };
  let condition = 'attribute_exists(pk) AND #parent = :oldParent';
  if (expectedRevision !== undefined) {
    const guard = revisionGuard(expectedRevision);
    Object.assign(names, guard.ExpressionAttributeNames);
    Object.assign(values, guard.ExpressionAttributeValues);
    condition += ' AND #revisionid = :expectedRevision';
  }
  let update = 'SET #parent = :newParent';
  if (newParent) {
    names['#g2pk'] = INDEXES.gsi2.pk;
    names['#g2sk'] = INDEXES.gsi2.sk;
    values[':g2pk'] = `WIKI_CHILDREN#${newParent.wikiid}`;
    values[':g2sk'] = titleSortKey(wiki.title, wiki.wikiid);
    update += ', #g2pk = :g2pk, #g2sk = :g2sk';
  } else {
    names['#g2pk'] = INDEXES.gsi2.pk;
    names['#g2sk'] = INDEXES.gsi2.sk;
    update += ' REMOVE #g2pk, #g2sk';
  }
  const writes: LabelledWrite[] = [
    {
      label: 'wiki',
      item: {
        Update: {
          TableName: tableName(),
          Key: wikiKey(wiki.wikiid),
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    },
  ];
  // One operation per item: the old parent loses a child, the new parent gains one, and every
  // ancestor of the new parent (the new parent included) must still hang where it did.
  const touched = new Map<number, { delta: number; parent?: number | null }>();
  if (wiki.parent_wikiid) touched.set(wiki.parent_wikiid, { delta: -1 });
  for (const ancestor of newAncestors) {
    const entry = touched.get(ancestor.wikiid) ?? { delta: 0 };
    entry.parent = ancestor.parent_wikiid;
    if (ancestor.wikiid === newParent?.wikiid) entry.delta += 1;
    touched.set(ancestor.wikiid, entry);
  }
  for (const [wikiid, { delta, parent }] of touched) {
    const checksParent = parent !== undefined;
    const base = {
      TableName: tableName(),
      Key: wikiKey(wikiid),
      ConditionExpression: checksParent ? 'attribute_exists(pk) AND #parent = :parent' : 'attribute_exists(pk)',
      ExpressionAttributeNames: checksParent ? { '#parent': 'parent_wikiid' } : undefined,
    };
    const parentValue = checksParent ? { ':parent': parent ?? NO_PARENT } : {};
    writes.push({
      label: `ancestor:${wikiid}`,
      item:
        delta !== 0
          ? {
              Update: {
                ...base,
                UpdateExpression: 'ADD child_count :delta',
                ExpressionAttributeValues: { ...parentValue, ':delta': delta },
              },
            }
          : { ConditionCheck: { ...base, ExpressionAttributeValues: parentValue } },
    });
  }
  await transactWrite(writes);
}

export async function getWikiRevision(wikiid: number, revisionid: number): Promise<WikiRevisionRecord | undefined> {
  const item = await getItem(revisionKey(wikiid, revisionid));
  return item ? recordFrom(wikiRevisionItemSchema, item) : undefined;
}

/** A page's revisions, newest first. */
export async function listWikiRevisions(
  wikiid: number,
  page: { limit: number; offset: number },
): Promise<WikiRevisionRecord[]> {
  const items = await queryPage({ partition: `WIKI#${wikiid}`, sortPrefix: 'REV#', descending: true }, page);
  return items.map(recordsOf(wikiRevisionItemSchema));
}

/** One page of a namespace, alphabetical by title; `modifiedSince` filters the same Query. */
export async function listWikis(
  namespace: WikiNamespace,
  page: { limit: number; offset: number },
  modifiedSince?: number,
): Promise<WikiRecord[]> {
  const filter =
    modifiedSince === undefined
      ? undefined
      : { FilterExpression: 'modified_date >= :since', ExpressionAttributeValues: { ':since': modifiedSince } };
  const items = await queryPage({ index: INDEXES.gsi1, partition: `WIKIS#${namespace}`, filter }, page);
  return items.map(wikiFromItem);
}

/** Every page of a namespace, alphabetical by title (the search index's rebuild reads them in chunks). */
export function wikiNamespaceCollection(namespace: WikiNamespace): PageQuery {
  return { index: INDEXES.gsi1, partition: `WIKIS#${namespace}` };
}

/** Direct children of a page, alphabetical by title. */
export async function listChildren(parentid: number, page: { limit: number; offset: number }): Promise<WikiRecord[]> {
  const items = await queryPage({ index: INDEXES.gsi2, partition: `WIKI_CHILDREN#${parentid}` }, page);
  return items.map(wikiFromItem);
}

/**
 * Every page of a namespace as tree nodes (only the four fields the tree needs are read), for
 * the hierarchy view, which by its nature returns the whole namespace.
 */
export async function listWikiNodes(namespace: WikiNamespace): Promise<WikiNode[]> {
  const items = await queryAll({
    index: INDEXES.gsi1,
    partition: `WIKIS#${namespace}`,
    projection: ['wikiid', 'title', 'display_title', 'parent_wikiid'],
  });
  return items.map((item) => {
    const node = parseStored(wikiNodeSchema, item);
    return { ...node, parent_wikiid: node.parent_wikiid || null };
  });
}
