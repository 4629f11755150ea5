/**
 * The one whole-table read: a parallel Scan's segments read one after the other, one page per
 * call, resumable across job steps from a cursor saved in the job item. Only the site export
 * and import steps use it (background jobs; decision 115): no request path scans.
 */
import { ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { rawDb, tableName } from '../db/client.ts';

/** Parallel-scan segments, read one after the other (each resumable from its last key). */
export const SCAN_SEGMENTS = 4;

/** Where a whole-table read stands: the segment and, within it, DynamoDB JSON of its LastEvaluatedKey. */
export interface ScanCursor {
  segment: number;
  last_key: Record<string, unknown> | null;
}

export function scanFinished(cursor: ScanCursor): boolean {
  return cursor.segment >= SCAN_SEGMENTS;
}

/** The next page of raw items (DynamoDB JSON); moves the cursor past it (to the next segment at a segment's end). */
export async function nextScanPage(cursor: ScanCursor, limit: number): Promise<Record<string, AttributeValue>[]> {
  const page = await rawDb().send(
    new ScanCommand({
      TableName: tableName(),
      Segment: cursor.segment,
      TotalSegments: SCAN_SEGMENTS,
      Limit: limit,
      ExclusiveStartKey: (cursor.last_key ?? undefined) as Record<string, AttributeValue> | undefined,
    }),
  );
  cursor.last_key = (page.LastEvaluatedKey as Record<string, unknown> | undefined) ?? null;
  if (!cursor.last_key) cursor.segment += 1;
  return page.Items ?? [];
}
