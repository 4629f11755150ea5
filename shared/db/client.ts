/** The DynamoDB document client, configured once from shared/config. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';

let documentClient: DynamoDBDocumentClient | undefined;

export function db(): DynamoDBDocumentClient {
  if (!documentClient) {
    const { DDB_ENDPOINT, AWS_REGION } = config();
    const client = new DynamoDBClient({
      region: AWS_REGION,
      ...(DDB_ENDPOINT
        ? { endpoint: DDB_ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
        : {}),
    });
    documentClient = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true },
    });
  }
  return documentClient;
}

export function tableName(): string {
  return config().TABLE_NAME;
}
