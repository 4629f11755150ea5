/**
 * The local stack's DynamoDB (DynamoDB Local), for tests and benches that read or change stored
 * items directly: the test stack's by default (vitest's `ddbEndpoint`), another stack's at its
 * endpoint. The one place a test builds a table client.
 */
import { inject } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

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
