/**
 * What a local stack stores, read straight from its table: the side a crawler test compares the
 * crawled items with. The test stack's table by default, or another stack's at `ddbEndpoint`.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { localDb } from '../../support/local-db.ts';

export async function storedItem(
  key: { pk: string; sk: string },
  ddbEndpoint?: string,
): Promise<Record<string, unknown> | undefined> {
  const { Item } = await localDb(ddbEndpoint).send(
    new GetCommand({ TableName: 'stepwise', Key: key, ConsistentRead: true }),
  );
  return Item;
}

/** Every stored item of a partition whose sort key starts with `sortPrefix`. */
export async function storedPartition(pk: string, sortPrefix = ''): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const result = await localDb().send(
      new QueryCommand({
        TableName: 'stepwise',
        KeyConditionExpression: sortPrefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
        ExpressionAttributeValues: sortPrefix ? { ':pk': pk, ':prefix': sortPrefix } : { ':pk': pk },
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    found.push(...(result.Items ?? []));
    start = result.LastEvaluatedKey;
  } while (start);
  return found;
}
