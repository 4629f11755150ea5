/**
 * Integer ids: one atomic counter item per entity type (UpdateItem ADD). Records migrated
 * with explicit ids move the counter past the highest id written, so later ids never collide.
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { db, tableName } from './client.ts';

export function counterKey(entityType: string) {
  return { pk: `COUNTER#${entityType}`, sk: 'COUNTER' };
}

/** The next id for an entity type: 1, 2, 3 ... never reused. */
export async function nextId(entityType: string): Promise<number> {
  const result = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: counterKey(entityType),
      UpdateExpression: 'ADD #value :one',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(result.Attributes!.value);
}

/** `count` consecutive new ids in one round trip (records created together, e.g. a step's lines). */
export async function nextIds(entityType: string, count: number): Promise<number[]> {
  if (count <= 0) return [];
  const result = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: counterKey(entityType),
      UpdateExpression: 'ADD #value :count',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':count': count },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const last = Number(result.Attributes!.value);
  return Array.from({ length: count }, (_, index) => last - count + 1 + index);
}

/**
 * After writing an explicit id, make sure the counter is at least that id. `table` names another
 * client and table (a bench copying an item between two local stacks); by default this process's.
 */
export async function moveCounterPast(
  entityType: string,
  id: number,
  table: { client: DynamoDBDocumentClient; name: string } = { client: db(), name: tableName() },
): Promise<void> {
  try {
    await table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: counterKey(entityType),
        UpdateExpression: 'SET #value = :id',
        ConditionExpression: 'attribute_not_exists(#value) OR #value < :id',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':id': id },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
