/**
 * Lists that page in several orders at O(page): one small reference item per (record, order),
 * pk `<collection>#BY#<order>` / sk `<sort value>#<record id>`, holding only the record's id
 * and the few attributes list filters need. A page is one Query on the order's partition plus
 * one BatchGet of the records. The reference items move in the same transaction as the
 * record's change (or in a guarded reindex), so they never disagree with it for long.
 */
import { tableName } from './client.ts';
import { queryChunks, queryPage, type PageQuery } from './paging.ts';
import type { LabelledWrite } from './transactions.ts';
import { canonicalJson } from '../domain/canonical-json.ts';

/** Where one record sits: its sort value per order, and the attributes filters read. */
export interface SortedPlacement {
  values: Record<string, string>;
  attributes: Record<string, unknown>;
}

/** A null sort value sorts after every real one (ascending): `~` is above digits and letters. */
export const NULL_LAST = '~';

export function refKey(collection: string, order: string, value: string, refId: string) {
  return { pk: `${collection}#BY#${order}`, sk: `${value}#${refId}` };
}

function sameAttributes(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/**
 * The writes that move a record's references from `before` to `after` (null: absent). Only
 * orders whose value or whose filter attributes changed are written.
 */
export function sortedRefWrites(
  collection: string,
  refId: string,
  before: SortedPlacement | null,
  after: SortedPlacement | null,
): LabelledWrite[] {
  const orders = new Set([...Object.keys(before?.values ?? {}), ...Object.keys(after?.values ?? {})]);
  const writes: LabelledWrite[] = [];
  const attributesChanged = !before || !after || !sameAttributes(before.attributes, after.attributes);
  for (const order of orders) {
    const oldValue = before?.values[order];
    const newValue = after?.values[order];
    if (oldValue !== undefined && oldValue !== newValue) {
      writes.push({
        label: `ref-remove:${collection}:${order}`,
        item: { Delete: { TableName: tableName(), Key: refKey(collection, order, oldValue, refId) } },
      });
    }
    if (newValue !== undefined && (oldValue !== newValue || attributesChanged)) {
      writes.push({
        label: `ref-put:${collection}:${order}`,
        item: {
          Put: {
            TableName: tableName(),
            Item: { ...refKey(collection, order, newValue, refId), entity: 'SortedRef', ...after!.attributes },
          },
        },
      });
    }
  }
  return writes;
}

/** One page of references in an order (ascending unless `descending`), optionally filtered. */
export async function sortedRefPage(
  collection: string,
  order: string,
  options: { descending?: boolean; filter?: PageQuery['filter'] },
  page: { limit: number; offset: number },
): Promise<Array<Record<string, unknown>>> {
  return queryPage(
    { partition: `${collection}#BY#${order}`, descending: options.descending, filter: options.filter },
    page,
  );
}

/** Every reference of one order, `size` at a time (a Query per chunk: the whole collection once). */
export async function* sortedRefChunks(
  collection: string,
  order: string,
  size = 100,
): AsyncGenerator<Array<Record<string, unknown>>> {
  yield* queryChunks({ partition: `${collection}#BY#${order}` }, size);
}
