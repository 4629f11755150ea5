/**
 * The local stack's DynamoDB (DynamoDB Local), for tests and benches that read or change stored
 * items directly: the test stack's by default (vitest's `ddbEndpoint`), another stack's at its
 * endpoint. The one place a test builds a table client.
 */
import { afterAll, beforeAll, inject, onTestFinished } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';

const documentClients = new Map<string, DynamoDBDocumentClient>();

/** A low-level client of its own (the caller may destroy it, e.g. after deleting the table). */
export function localDynamoClient(endpoint: string = inject('ddbEndpoint')): DynamoDBClient {
  // DynamoDB Local takes any credentials; fixed ones keep the SDK from looking for real ones.
  return new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
}

/** The document client of the stack's table (plain JS values), one per endpoint, kept. */
export function localDb(endpoint: string = inject('ddbEndpoint')): DynamoDBDocumentClient {
  let client = documentClients.get(endpoint);
  if (!client) {
    client = DynamoDBDocumentClient.from(localDynamoClient(endpoint));
    documentClients.set(endpoint, client);
  }
  return client;
}

/**
 * Lets this test file run service modules in its own process against the stack's table: the
 * environment a handler reads is set before the file's later `beforeAll`s (which import the
 * services) and put back after the file. Call it at the top level, before those hooks.
 */
export function runServicesOnStackTable(table = 'stepwise'): void {
  const names = ['DDB_ENDPOINT', 'TABLE_NAME', 'STEPWISE_RUNTIME', 'AWS_REGION', 'LOG_LEVEL'];
  const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
  beforeAll(() => {
    Object.assign(process.env, {
      DDB_ENDPOINT: inject('ddbEndpoint'),
      TABLE_NAME: table,
      STEPWISE_RUNTIME: 'local',
      AWS_REGION: 'us-east-1',
      LOG_LEVEL: 'ERROR',
    });
  });
  afterAll(() => {
    for (const name of names) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });
}

type ItemKey = { pk: string; sk: string };

/**
 * Changes attributes of a stored item behind the service's back for the running test only (as a
 * bug or an older version would have): `undefined` removes one. Once the test finishes, passed
 * or failed, the attributes are put back as they were, so the table the run leaves holds only
 * what the code wrote (the teardown audit, test/support/table-audit.ts). Not for `it.concurrent`
 * tests: vitest's `onTestFinished` needs their own context there.
 */
export async function changeForThisTest(key: ItemKey, changes: Record<string, unknown>): Promise<void> {
  const db = localDb();
  const { Item } = await db.send(new GetCommand({ TableName: 'stepwise', Key: key, ConsistentRead: true }));
  if (!Item) throw new Error(`no item ${key.pk} / ${key.sk} to change`);
  const before = Object.fromEntries(Object.keys(changes).map((name) => [name, Item[name]]));
  onTestFinished(() => setAttributes(key, before));
  await setAttributes(key, changes);
}

/** Puts an item the code would never write, for the running test only: deleted once it finishes. */
export async function putForThisTest(item: ItemKey & Record<string, unknown>): Promise<void> {
  onTestFinished(async () => {
    await localDb().send(new DeleteCommand({ TableName: 'stepwise', Key: { pk: item.pk, sk: item.sk } }));
  });
  await localDb().send(new PutCommand({ TableName: 'stepwise', Item: item }));
}

/** SETs the attributes given a value and REMOVEs those given `undefined`. */
async function setAttributes(key: ItemKey, values: Record<string, unknown>): Promise<void> {
  const names = Object.keys(values);
  const placeholder = (index: number) => `#a${index}`;
  const set = names.flatMap((name, index) =>
    values[name] === undefined ? [] : [`${placeholder(index)} = :v${index}`],
  );
  const remove = names.flatMap((name, index) => (values[name] === undefined ? [placeholder(index)] : []));
  const setValues = Object.fromEntries(
    names.flatMap((name, index) => (values[name] === undefined ? [] : [[`:v${index}`, values[name]]])),
  );
  await localDb().send(
    new UpdateCommand({
      TableName: 'stepwise',
      Key: key,
      UpdateExpression: [set.length ? `SET ${set.join(', ')}` : '', remove.length ? `REMOVE ${remove.join(', ')}` : '']
        .filter(Boolean)
        .join(' '),
      ExpressionAttributeNames: Object.fromEntries(names.map((name, index) => [placeholder(index), name])),
      ...(set.length ? { ExpressionAttributeValues: setValues } : {}),
    }),
  );
}
