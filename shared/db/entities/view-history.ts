/**
 * View history: one item per (user, document, second) viewed. The item lives in the user's
 * partition, pk VIEWS#USER#<userid> / sk <padded date>#<GUIDE|WIKI>#<padded docid>, and is also
 * indexed by document through gsi1, gsi1pk VIEWS#<GUIDE|WIKI>#<docid> / gsi1sk
 * <padded date>#<padded userid>. So one Put serves both listings, and both are Queries over a
 * date range (sort keys start with the date). Repeated views of one document by one user in
 * the same second collapse into one entry.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { padId } from '../keys.ts';
import { INDEXES } from '../table.ts';
import { queryPage, type PageQuery } from '../paging.ts';
import { recordsOf, type StoredRecord } from '../stored-item.ts';
import * as z from 'zod/mini';

export type ViewDocType = 'GUIDE' | 'WIKI';

/** Inclusive date bounds (Unix seconds); either may be left open. */
export interface DateRange {
  start_date?: number;
  end_date?: number;
}

function userPartition(userid: number): string {
  return `VIEWS#USER#${userid}`;
}

function documentPartition(docType: ViewDocType, docid: number): string {
  return `VIEWS#${docType}#${docid}`;
}

export const viewItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  gsi1pk: z.string(),
  gsi1sk: z.string(),
  entity: z.literal('View'),
  userid: z.int().check(z.positive()),
  username: z.string(),
  doc_type: z.enum(['GUIDE', 'WIKI']),
  docid: z.int().check(z.positive()),
  date: z.number(),
});

export type ViewRecord = StoredRecord<typeof viewItemSchema>;

/** The stored item of one view (pure: a migration builds it from the source's history). */
export function viewItem(view: ViewRecord): z.input<typeof viewItemSchema> {
  return {
    pk: userPartition(view.userid),
    sk: `${padId(view.date)}#${view.doc_type}#${padId(view.docid)}`,
    [INDEXES.gsi1.pk]: documentPartition(view.doc_type, view.docid),
    [INDEXES.gsi1.sk]: `${padId(view.date)}#${padId(view.userid)}`,
    entity: 'View',
    userid: view.userid,
    username: view.username,
    doc_type: view.doc_type,
    docid: view.docid,
    date: view.date,
  };
}

/** Records that a user viewed a document: one cheap Put, indexed both ways. */
export async function recordView(view: ViewRecord): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: viewItem(view) }));
}

/** Sort-key bounds for a date range: every key starts with the padded date then '#'. */
function dateBounds(range: DateRange) {
  const from = padId(Math.max(0, range.start_date ?? 0));
  const to = `${padId(Math.max(0, range.end_date ?? 999_999_999_999))}#\uffff`;
  return { from, to };
}

const fromItem = recordsOf(viewItemSchema);

/** A user's views, newest first, within the date range. */
export async function listViewsByUser(
  userid: number,
  range: DateRange,
  page: { limit: number; offset: number },
): Promise<ViewRecord[]> {
  const query: PageQuery = { partition: userPartition(userid), sortBetween: dateBounds(range), descending: true };
  return (await queryPage(query, page)).map(fromItem);
}

/** Views of one document, newest first, within the date range. */
export async function listViewsOfDocument(
  docType: ViewDocType,
  docid: number,
  range: DateRange,
  page: { limit: number; offset: number },
): Promise<ViewRecord[]> {
  const query: PageQuery = {
    index: INDEXES.gsi1,
    partition: documentPartition(docType, docid),
    sortBetween: dateBounds(range),
    descending: true,
  };
  return (await queryPage(query, page)).map(fromItem);
}
