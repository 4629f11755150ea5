/**
 * The search indexer's stream handler, shared by the Lambda entry (functions/search/
 * indexer.handler.ts) and the local stack's stream reader (infra/local/table-stream.ts).
 */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { indexChanges, rebuildSearchIndex, type TableChange } from './indexer.ts';
import { log } from '../observability/logger.ts';
import { MERGE_BUDGET_MS } from './index-store.ts';
import type { SearchWritten } from './search-port.ts';

type Image = Record<string, { S?: string; N?: string }> | undefined;

/** Only what the indexer reads (keys, a step's guideid): attributes of other shapes are never converted. */
function fields(image: Image, names: string[]): Record<string, unknown> | undefined {
  if (!image) return undefined;
  const plain: Record<string, unknown> = {};
  for (const name of names) {
    const value = image[name];
    if (value?.S !== undefined) plain[name] = value.S;
    else if (value?.N !== undefined) plain[name] = Number(value.N);
  }
  return plain;
}

export function tableChangesOf(event: DynamoDBStreamEvent): TableChange[] {
  return event.Records.map((record) => ({
    keys: fields(record.dynamodb?.Keys as Image, ['pk', 'sk']) ?? {},
    newImage: fields(record.dynamodb?.NewImage as Image, ['guideid']),
    oldImage: fields(record.dynamodb?.OldImage as Image, ['guideid']),
  }));
}

/** An operator's invocation of the indexer function: `{"rebuild": true}` makes the whole index again. */
export interface RebuildRequest {
  rebuild: true;
}

/**
 * Indexes one stream batch; returns once it is searchable, with the upkeep after it (the
 * embedded index's merges) for the caller to run: the local indexer thread runs it in the
 * background, beside the next batches (decision 293).
 */
export async function indexBatch(event: DynamoDBStreamEvent): Promise<SearchWritten> {
  return indexChanges(tableChangesOf(event));
}

/**
 * The Lambda's entry: the batch, then its upkeep within MERGE_BUDGET_MS (the stream shard's next
 * batch waits for this invocation), or a rebuild.
 */
export async function onTableStream(
  event: DynamoDBStreamEvent | RebuildRequest,
): Promise<{ engine: string; documents: number } | undefined> {
  if ('rebuild' in event && event.rebuild === true) return rebuild();
  const { Records } = event as DynamoDBStreamEvent;
  const written = await indexBatch({ Records });
  await written.upkeep?.(MERGE_BUDGET_MS);
  return undefined;
}

export async function rebuild(): Promise<{ engine: string; documents: number }> {
  const rebuilt = await rebuildSearchIndex();
  log().info('Search index rebuilt', rebuilt);
  return rebuilt;
}
