/** The DynamoDB document client, configured once from shared/config. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { clearRequestCache } from './request-cache.ts';
import { offerClientToHook } from '../sdk-client-hook.ts';

// Names of the low-level commands the document client sends.
const READ_COMMANDS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'TransactGetItemsCommand']);

let documentClient: DynamoDBDocumentClient | undefined;
let lowLevelClient: DynamoDBClient | undefined;

const writeListeners = new Set<() => void>();

/**
 * Runs `listener` before and after every write (or attempted write) through the document
 * client: container-level caches (the authentication cache) drop what they hold, so this
 * container never serves something it has itself changed.
 */
export function onTableWrite(listener: () => void): void {
  writeListeners.add(listener);
}

function tableWritten(): void {
  clearRequestCache();
  for (const listener of writeListeners) listener();
}

export function db(): DynamoDBDocumentClient {
  if (!documentClient) {
    const { DDB_ENDPOINT, AWS_REGION } = config();
    const client = new DynamoDBClient({
      region: AWS_REGION,
      ...(DDB_ENDPOINT
        ? { endpoint: DDB_ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
        : {}),
    });
    lowLevelClient = offerClientToHook(client);
    documentClient = DynamoDBDocumentClient.from(lowLevelClient, {
      marshallOptions: { removeUndefinedValues: true },
    });
    // Any write (or an attempted one) invalidates what this request has read.
    documentClient.middlewareStack.add(
      (next, context) => async (args) => {
        const isRead = READ_COMMANDS.has(String(context.commandName));
        if (!isRead) tableWritten();
        try {
          return await next(args);
        } finally {
          if (!isRead) tableWritten();
        }
      },
      { step: 'initialize', name: 'clearRequestCacheOnWrite' },
    );
  }
  return documentClient;
}

/**
 * The low-level client under db() (same middleware, so writes clear caches too): items in
 * DynamoDB JSON, copied verbatim by the site export and import (shared/site-archive/).
 */
export function rawDb(): DynamoDBClient {
  db();
  return lowLevelClient!;
}

export function tableName(): string {
  return config().TABLE_NAME;
}
