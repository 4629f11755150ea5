/**
 * Offset/limit pages over a Query. DynamoDB has no OFFSET, so the skipped part is read with a
 * keys-only projection (cheap: no attribute payload), then exactly one page is read with full
 * items. The cost is O(offset) key reads + O(limit) items, never O(table).
 */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { KEY } from './table.ts';
import type { Item } from './items.ts';

/** An offset page request (limit 1..200, offset 0..100,000; see shared/http/query.ts). */
export type Page = { limit: number; offset: number };

/**
 * The largest Limit one Query is sent with. DynamoDB refuses a Limit above 2^31 - 1; a Query
 * returns at most 1 MB anyway, so a larger skip or page is read in several Queries.
 */
const MAX_QUERY_LIMIT = 1000;

function queryLimit(wanted: number): number {
  return Math.max(1, Math.min(wanted, MAX_QUERY_LIMIT));
}

export interface PageQuery {
  index?: { name: string; pk: string; sk: string };
  partition: string;
  /** Restrict the sort key to a prefix (e.g. MEMBER#). */
  sortPrefix?: string;
  /** Restrict the sort key to an inclusive range (e.g. dates); not combined with sortPrefix. */
  sortBetween?: { from: string; to: string };
  /** Only sort keys after this one (exclusive), e.g. the records after a sequence number. */
  sortAfter?: string;
  /** Only sort keys before this one (exclusive), e.g. what a queue holds ahead of an item; not with sortAfter. */
  sortBefore?: string;
  /** Newest first when true. */
  descending?: boolean;
  /** Strongly consistent reads (not on a GSI). */
  consistent?: boolean;
  /** Read only these attributes (any names: reserved words are aliased). */
  projection?: string[];
  filter?: Pick<QueryCommandInput, 'FilterExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>;
}

/** The Query of `query`; `projected: false` leaves the projection to the caller (key-only skips). */
function baseInput(query: PageQuery, projected = true): QueryCommandInput {
  const pkName = query.index?.pk ?? KEY.pk;
  const skName = query.index?.sk ?? KEY.sk;
  const names: Record<string, string> = { '#pk': pkName, ...(query.filter?.ExpressionAttributeNames ?? {}) };
  const values: Record<string, unknown> = {
    ':pk': query.partition,
    ...(query.filter?.ExpressionAttributeValues ?? {}),
  };
  let condition = '#pk = :pk';
  if (query.sortPrefix) {
    names['#sk'] = skName;
    values[':prefix'] = query.sortPrefix;
    condition += ' AND begins_with(#sk, :prefix)';
  } else if (query.sortBetween) {
    names['#sk'] = skName;
    values[':from'] = query.sortBetween.from;
    values[':to'] = query.sortBetween.to;
    condition += ' AND #sk BETWEEN :from AND :to';
  } else if (query.sortAfter !== undefined) {
    names['#sk'] = skName;
    values[':after'] = query.sortAfter;
    condition += ' AND #sk > :after';
  } else if (query.sortBefore !== undefined) {
    names['#sk'] = skName;
    values[':before'] = query.sortBefore;
    condition += ' AND #sk < :before';
  }
  let projection: string | undefined;
  if (projected && query.projection?.length) {
    for (const [index, name] of query.projection.entries()) names[`#p${index}`] = name;
    projection = query.projection.map((_, index) => `#p${index}`).join(', ');
  }
  return {
    TableName: tableName(),
    IndexName: query.index?.name,
    KeyConditionExpression: condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    FilterExpression: query.filter?.FilterExpression,
    ProjectionExpression: projection,
    ConsistentRead: query.consistent || undefined,
    ScanIndexForward: !query.descending,
  };
}

function keyNamesOf(query: PageQuery): string[] {
  return [...new Set([KEY.pk, KEY.sk, query.index?.pk, query.index?.sk].filter(Boolean) as string[])];
}

/**
 * Reads past `offset` matching items (keys only when there is no filter) and returns the key
 * to start the page after, or undefined when the collection ends before the offset.
 */
async function skip(query: PageQuery, offset: number): Promise<Record<string, unknown> | undefined> {
  const keyNames = keyNamesOf(query);
  let remaining = offset;
  let startKey: Record<string, unknown> | undefined;
  while (remaining > 0) {
    const input = baseInput(query, false);
    // Unused attribute names are an error, so the key aliases come only with the key projection
    // (a filtered read needs the filter's attributes, so only an unfiltered one projects keys).
    if (!query.filter) for (const [i, name] of keyNames.entries()) input.ExpressionAttributeNames![`#k${i}`] = name;
    const result = await db().send(
      new QueryCommand({
        ...input,
        ProjectionExpression: query.filter ? undefined : keyNames.map((_, i) => `#k${i}`).join(', '),
        Limit: query.filter ? undefined : queryLimit(remaining),
        ExclusiveStartKey: startKey,
      }),
    );
    const items = result.Items ?? [];
    if (items.length >= remaining) {
      // The page starts right after the last skipped item (a filtered read can overshoot).
      const last = items[remaining - 1];
      return Object.fromEntries(keyNames.map((name) => [name, last[name]]));
    }
    remaining -= items.length;
    startKey = result.LastEvaluatedKey;
    if (!startKey) return undefined;
  }
  return startKey;
}

/** One page of items for offset/limit pagination. */
export async function queryPage(query: PageQuery, page: { limit: number; offset: number }): Promise<Item[]> {
  let startKey: Record<string, unknown> | undefined;
  if (page.offset > 0) {
    startKey = await skip(query, page.offset);
    if (!startKey) return [];
  }
  const items: Item[] = [];
  do {
    const result = await db().send(
      new QueryCommand({
        ...baseInput(query),
        Limit: query.filter ? undefined : queryLimit(page.limit - items.length),
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(result.Items ?? []));
    startKey = result.LastEvaluatedKey;
  } while (startKey && items.length < page.limit);
  return items.slice(0, page.limit);
}

/** How many items a collection holds (Select COUNT: no attribute payload is returned). */
export async function queryCount(query: PageQuery): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await db().send(
      new QueryCommand({ ...baseInput(query, false), Select: 'COUNT', ExclusiveStartKey: startKey }),
    );
    count += result.Count ?? 0;
    startKey = result.LastEvaluatedKey;
  } while (startKey);
  return count;
}

/** The first item of a collection in its order (e.g. the newest with `descending`), if any. */
export async function queryFirst(query: PageQuery): Promise<Item | undefined> {
  return (await queryPage(query, { limit: 1, offset: 0 }))[0];
}

/** Every item of a (small, bounded) collection, e.g. a team's members for an aggregate. */
export async function queryAll(query: PageQuery): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await db().send(new QueryCommand({ ...baseInput(query), ExclusiveStartKey: startKey }));
    items.push(...(result.Items ?? []));
    startKey = result.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/**
 * A collection in order, one Query page of at most `chunk` items at a time: for lists that
 * select items in code (visibility) and stop as soon as a page is full.
 */
export async function* queryChunks(query: PageQuery, chunk = 100): AsyncGenerator<Item[]> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await db().send(
      new QueryCommand({ ...baseInput(query), Limit: queryLimit(chunk), ExclusiveStartKey: startKey }),
    );
    const items = result.Items ?? [];
    if (items.length > 0) yield items;
    startKey = result.LastEvaluatedKey;
  } while (startKey);
}
