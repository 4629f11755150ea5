/** The DynamoDB document client, configured once from shared/config. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { offerClientToHook } from '../sdk-client-hook.ts';

// Names of the low-level commands the document client sends.
const READ_COMMANDS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'TransactGetItemsCommand']);

let documentClient: DynamoDBDocumentClient | undefined;
let lowLevelClient: DynamoDBClient | undefined;
let keyReads: DynamoDBClient | undefined;

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
  for (const listener of writeListeners) listener();
}

function createClient(options: { cacheMiddleware?: boolean } = {}): DynamoDBClient {
  const { DDB_ENDPOINT, AWS_REGION } = config();
  const client = new DynamoDBClient({
    region: AWS_REGION,
    ...options,
    ...(DDB_ENDPOINT
      ? { endpoint: DDB_ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
  // The SDK's logger middleware filters every input and output for a logger we never configure
  // (the default logs nothing): about 10 us of CPU per call for nothing.
  client.middlewareStack.remove('loggerMiddleware');
  return offerClientToHook(client);
}

export function db(): DynamoDBDocumentClient {
  if (!documentClient) {
    lowLevelClient = createClient();
    documentClient = DynamoDBDocumentClient.from(lowLevelClient, {
      marshallOptions: { removeUndefinedValues: true },
    });
    // Any write (or an attempted one) invalidates what this container has cached.
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
      { step: 'initialize', name: 'clearContainerCachesOnWrite' },
    );
  }
  return documentClient;
}

/**
 * The client for reads by key (shared/db/items.ts getItem), the most frequent call on the request
 * path. A low-level client with `cacheMiddleware`: the SDK resolves its middleware stack once per
 * command class instead of on every call (decision 158). Every request goes the SDK's own way:
 * its signer, its connection pool, its retries (decision 182 removed a second path). The document
 * client cannot use the option: its commands
 * capture their own input in the handler the cache would keep. Reads clear no cache, so the write
 * listener is not needed.
 */
export function keyReadClient(): DynamoDBClient {
  keyReads ??= createClient({ cacheMiddleware: true });
  return keyReads;
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
