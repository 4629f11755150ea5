/**
 * The search indexer's stream handler, shared by the Lambda entry (functions/search/
 * indexer.handler.ts) and the local stack's stream reader (infra/local/table-stream.ts).
 */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { indexChanges, rebuildSearchIndex, type TableChange } from './indexer.ts';
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

export async function onTableStream(event: DynamoDBStreamEvent): Promise<void> {
  const written = await indexChanges(tableChangesOf(event));
  if (written) {
    log().info('Search index written', {
      version: written.head.version,
      documents: written.head.documents,
      bytes: written.head.bytes,
      attempts: written.attempts,
      records: event.Records.length,
    });
  }
}

export async function rebuild(): Promise<{ version: number; documents: number }> {
  const written = await rebuildSearchIndex();
  return { version: written.head.version, documents: written.head.documents };
}
