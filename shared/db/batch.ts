/** BatchGet by key, returning items in the order of the keys asked for (missing ones dropped). */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';

type Key = { pk: string; sk: string };

export async function batchGetInOrder<T = Record<string, unknown>>(keys: Key[]): Promise<T[]> {
  const found = new Map<string, T>();
  for (let start = 0; start < keys.length; start += 100) {
    let pending: Key[] | undefined = keys.slice(start, start + 100);
    for (let attempt = 0; pending && pending.length > 0 && attempt < 8; attempt++) {
      const result = await db().send(new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending } } }));
      for (const item of result.Responses?.[tableName()] ?? []) {
        found.set(`${item.pk}|${item.sk}`, item as T);
      }
      pending = result.UnprocessedKeys?.[tableName()]?.Keys as Key[] | undefined;
      if (pending?.length) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt));
    }
  }
  return keys.map((key) => found.get(`${key.pk}|${key.sk}`)).filter((item): item is T => item !== undefined);
}
