/**
 * Optimistic concurrency for revisioned resources. A write names the revision it was based on;
 * DynamoDB applies it only if that is still the current one (a ConditionExpression, never a
 * read-then-write), and on a mismatch returns the item as it is now, which the service turns
 * into the 409 body. New revision ids come from one counter, so they only grow.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { nextId } from './counters.ts';
import { TransactionConditionFailed } from './transactions.ts';
import { type ConflictError, StaleRevisionError } from '../domain/errors.ts';

export function nextRevisionId(): Promise<number> {
  return nextId('revision');
}

/**
 * Condition parts that hold only when the item exists and its `revisionid` is `expected`.
 * Merge into an Update/Put/Delete; pair with ReturnValuesOnConditionCheckFailure: 'ALL_OLD'.
 */
export function revisionGuard(expected: number) {
  return {
    ConditionExpression: 'attribute_exists(pk) AND #revisionid = :expectedRevision',
    ExpressionAttributeNames: { '#revisionid': 'revisionid' },
    ExpressionAttributeValues: { ':expectedRevision': expected },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
}

/**
 * If `error` is a failed revision guard (plain write, or the write labelled `label` in a
 * transaction), the ConflictError carrying the current resource; otherwise undefined.
 * A missing item (deleted meanwhile) is not a conflict: the caller's 404 applies.
 */
export async function staleRevisionConflict(
  error: unknown,
  label: string,
  currentView: (item: Record<string, unknown>) => unknown | Promise<unknown>,
): Promise<ConflictError | undefined> {
  let item: Record<string, unknown> | undefined;
  if (error instanceof ConditionalCheckFailedException) item = error.Item ? unmarshall(error.Item) : undefined;
  else if (error instanceof TransactionConditionFailed && error.failedLabels.includes(label))
    item = error.oldItems[label];
  else return undefined;
  if (!item) return undefined;
  return new StaleRevisionError(Number(item.revisionid), await currentView(item));
}
