/**
 * Comparing a file's item with the target table's item under the same key: identical items are
 * "already present" (a second run of the same file writes nothing), different ones collide.
 */
import { BatchGetItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { untilProcessed } from '../db/batch.ts';
import { rawDb, tableName } from '../db/client.ts';
import { canonicalJson } from '../domain/canonical-json.ts';

export type RawItem = Record<string, AttributeValue>;
const SET_TYPES = ['SS', 'NS', 'BS'];

/** A form in which equal items read equal: map keys sorted, set members sorted. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, child]) => [
        key,
        SET_TYPES.includes(key) && Array.isArray(child) ? [...child].map(String).sort() : canonical(child),
      ]),
    );
  }
  return value;
}

/** Equal items, leaving out the attributes named in `ignoring` (the operator's credentials). */
export function sameItem(a: RawItem, b: RawItem, ignoring: string[] = []): boolean {
  const strip = (item: RawItem) => Object.fromEntries(Object.entries(item).filter(([key]) => !ignoring.includes(key)));
  return canonicalJson(canonical(strip(a))) === canonicalJson(canonical(strip(b)));
}

export const itemLabel = (item: RawItem) => `${item.pk?.S ?? '?'} / ${item.sk?.S ?? '?'}`;
const keyText = (item: RawItem) => `${item.pk?.S}\u0000${item.sk?.S}`;

/** The target's items under the keys of `items` (100 keys per call, leftovers resent), by key. */
export async function targetItems(items: RawItem[]): Promise<Map<string, RawItem>> {
  const found = new Map<string, RawItem>();
  for (let start = 0; start < items.length; start += 100) {
    const keys = items.slice(start, start + 100).map((item) => ({ pk: item.pk!, sk: item.sk! }));
    await untilProcessed(keys, async (batch) => {
      const result = await rawDb().send(
        new BatchGetItemCommand({ RequestItems: { [tableName()]: { Keys: batch, ConsistentRead: true } } }),
      );
      for (const item of result.Responses?.[tableName()] ?? []) found.set(keyText(item), item);
      return result.UnprocessedKeys?.[tableName()]?.Keys as typeof batch | undefined;
    });
  }
  return found;
}

export function targetOf(found: Map<string, RawItem>, item: RawItem): RawItem | undefined {
  return found.get(keyText(item));
}
