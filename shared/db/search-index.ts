/**
 * Prefix search without Scan: one small item per (word, record) in a search partition, e.g.
 * pk SEARCH#USER, sk "smith#000000000042". A Query with begins_with finds records by the
 * prefix of any of their words. Written in the same transaction as the record.
 */
import { tableName } from './client.ts';
import { queryChunks } from './paging.ts';
import { padId } from './keys.ts';
import type { LabelledWrite } from './transactions.ts';
import { normalizeSearchTerm } from '../domain/search-tokens.ts';

export type SearchScope = 'USER' | 'GUIDE' | 'WIKI' | 'TEAM' | 'QUIZ' | 'PROCESS' | 'REVIEW_DOC' | 'COURSE';

export function searchKey(scope: SearchScope, token: string, id: number) {
  return { pk: `SEARCH#${scope}`, sk: `${token}#${padId(id)}` };
}

/** The writes that move a record's tokens from `before` to `after`. */
export function searchTokenWrites(scope: SearchScope, id: number, before: string[], after: string[]): LabelledWrite[] {
  const removed = before.filter((token) => !after.includes(token));
  const added = after.filter((token) => !before.includes(token));
  return [
    ...removed.map((token) => ({
      label: `search-remove:${token}`,
      item: { Delete: { TableName: tableName(), Key: searchKey(scope, token, id) } },
    })),
    ...added.map((token) => ({
      label: `search-add:${token}`,
      item: { Put: { TableName: tableName(), Item: { ...searchKey(scope, token, id), entity: 'SearchToken', id } } },
    })),
  ];
}

/**
 * Ids of records with a word starting with `term`, in token order, de-duplicated. Reads at
 * most `limit + offset` distinct ids' worth of tokens, never the whole partition.
 */
export async function searchIds(scope: SearchScope, term: string, limit: number, offset = 0): Promise<number[]> {
  const prefix = normalizeSearchTerm(term);
  if (!prefix) return [];
  const ids = new Set<number>();
  for await (const tokens of queryChunks(
    { partition: `SEARCH#${scope}`, sortPrefix: prefix, projection: ['id'] },
    100,
  )) {
    for (const token of tokens) ids.add(Number(token.id));
    if (ids.size >= offset + limit) break;
  }
  return [...ids].slice(offset, offset + limit);
}
