/**
 * The search indexer's stream handler, shared by the Lambda entry (functions/search/
 * indexer.handler.ts) and the local stack's stream reader (infra/local/table-stream.ts).
 */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { indexChanges, rebuildSearchIndex, type TableChange } from './indexer.ts';
import { mergeIfDue } from './index-store.ts';
import { log } from '../observability/logger.ts';

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

export async function onTableStream(
  event: DynamoDBStreamEvent | RebuildRequest,
): Promise<{ version: number; documents: number } | undefined> {
  if ('rebuild' in event && event.rebuild === true) return rebuild();
  const { Records } = event as DynamoDBStreamEvent;
  const written = await indexChanges(tableChangesOf({ Records }));
  if (written) {
    log().info('Search index written', {
      version: written.head.version,
      documents: written.head.documents,
      delta: written.head.delta.documents,
      tombstones: written.head.delta.tombstones,
      attempts: written.attempts,
      records: Records.length,
    });
    // The change is searchable now; folding the delta into the shards comes after it (decision 289).
    const merges = await mergeIfDue(written.head);
    if (merges > 0) log().info('Search delta merged', { merges });
  }
  return undefined;
}

export async function rebuild(): Promise<{ version: number; documents: number }> {
  const written = await rebuildSearchIndex();
  log().info('Search index rebuilt', { version: written.head.version, documents: written.head.documents });
  return { version: written.head.version, documents: written.head.documents };
}
