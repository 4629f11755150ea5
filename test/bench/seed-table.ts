/**
 * Items written straight into a bench stack's table: 25-item BatchWrites, eight in flight,
 * unprocessed items sent again. Benches build the items with the entity files' own builders, so
 * what they seed is what the API stores; this only spares them the write loop.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { localDb } from '../support/local-db.ts';

const TABLE = 'stepwise';
const BATCH = 25;
const IN_FLIGHT = 8;

/** Writes every item `items` yields (drawn lazily, so a large seed is never all in memory); returns the count. */
export async function writeItems(ddbEndpoint: string, items: Iterable<Record<string, unknown>>): Promise<number> {
  const db = localDb(ddbEndpoint);
  const source = items[Symbol.iterator]();
  const takeBatch = () => {
    const batch: Array<Record<string, unknown>> = [];
    for (let next = source.next(); !next.done; next = source.next()) {
      batch.push(next.value);
      if (batch.length === BATCH) break;
    }
    return batch;
  };
  let written = 0;
  const workers = Array.from({ length: IN_FLIGHT }, async () => {
    for (let batch = takeBatch(); batch.length > 0; batch = takeBatch()) {
      let pending: unknown[] | undefined = batch.map((Item) => ({ PutRequest: { Item } }));
      while (pending && pending.length > 0) {
        const result: { UnprocessedItems?: Record<string, unknown[]> } = await db.send(
          new BatchWriteCommand({ RequestItems: { [TABLE]: pending as never } }),
        );
        pending = result.UnprocessedItems?.[TABLE];
      }
      written += batch.length;
    }
  });
  try {
    await Promise.all(workers);
  } finally {
    db.destroy();
  }
  return written;
}
