/**
 * shared/db/direct-get-item.ts sends GetItem itself and leaves the rest to the SDK. Its requests
 * must carry the signature the SDK's signer computes (DynamoDB Local accepts any, so that is
 * compared here byte for byte), its answers must be the SDK's, and whatever it does not answer
 * must reach the SDK's own path: proven against DynamoDB Local with a request handler that counts
 * what the SDK sends.
 */
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  type GetItemCommandInput,
  PutItemCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import { createServer, type AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { answerGetItemDirectly, signedJsonHeaders } from '../../shared/db/direct-get-item.ts';
import { NodeSha256 } from '../../shared/storage/presigned-get.ts';

describe('the direct GetItem signature', () => {
  const cases = [
    { name: 'us-east-1', host: 'dynamodb.us-east-1.amazonaws.com', region: 'us-east-1', sessionToken: undefined },
    {
      name: 'a role session',
      host: 'dynamodb.eu-west-1.amazonaws.com',
      region: 'eu-west-1',
      sessionToken: 'IQo/tok+en==',
    },
    { name: 'China', host: 'dynamodb.cn-north-1.amazonaws.com.cn', region: 'cn-north-1', sessionToken: undefined },
    { name: 'a local endpoint with a port', host: '127.0.0.1:8000', region: 'us-east-1', sessionToken: undefined },
  ];
  const body = JSON.stringify({ TableName: 'stepwise', Key: { pk: { S: 'USER#7 Ünïcode "q"' }, sk: { S: 'USER' } } });

  for (const { name, host, region, sessionToken } of cases) {
    it(`is the SDK signer's (${name})`, async () => {
      const credentials = { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret/with+chars', sessionToken };
      // Across a day boundary too: the signing key is derived per day.
      for (const date of [new Date('2026-11-25T23:59:59.500Z'), new Date('2026-11-26T00:00:01Z')]) {
        const ours = signedJsonHeaders({ host, region, target: 'DynamoDB_20120810.GetItem', body, credentials, date });
        const sdk = await new SignatureV4({ service: 'dynamodb', region, credentials, sha256: NodeSha256 }).sign(
          {
            method: 'POST',
            protocol: 'https:',
            hostname: host.split(':')[0],
            path: '/',
            headers: {
              'content-type': 'application/x-amz-json-1.0',
              host,
              'x-amz-target': 'DynamoDB_20120810.GetItem',
            },
            body,
          },
          { signingDate: date },
        );
        expect(ours.authorization).toBe(sdk.headers.authorization);
        expect(ours['x-amz-date']).toBe(sdk.headers['x-amz-date']);
        expect(ours['x-amz-security-token']).toBe(sessionToken);
      }
    });
  }
});

describe('the direct GetItem request', () => {
  it("signs only headers the SDK's DynamoDB client signs, with the same values", async () => {
    let sent: Record<string, string> = {};
    const credentials = { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' };
    const capturing = new DynamoDBClient({
      region: 'eu-west-1',
      credentials,
      maxAttempts: 1,
      requestHandler: {
        handle: async (request: { headers: Record<string, string> }) => {
          sent = request.headers;
          throw new Error('captured');
        },
      },
    });
    const input = { TableName: 'stepwise', Key: { pk: { S: 'USER#7' }, sk: { S: 'USER' } } };
    await expect(capturing.send(new GetItemCommand(input))).rejects.toThrow('captured');
    const ours = signedJsonHeaders({
      host: 'dynamodb.eu-west-1.amazonaws.com',
      region: 'eu-west-1',
      target: 'DynamoDB_20120810.GetItem',
      body: JSON.stringify(input),
      credentials,
      date: new Date(),
    });
    const signedBySdk = /SignedHeaders=([^,]+)/.exec(sent.authorization)?.[1].split(';') ?? [];
    const signedByUs = /SignedHeaders=([^,]+)/.exec(ours.authorization)?.[1].split(';') ?? [];
    expect(signedByUs.length).toBe(6);
    for (const name of signedByUs) {
      expect(signedBySdk).toContain(name);
      if (name !== 'x-amz-date') expect(ours[name]).toBe(sent[name]);
    }
  });
});

type ClientOptions = {
  region: string;
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
};

/**
 * A client with the direct GetItem whose SDK requests go through the SDK's own handler, counted:
 * `sdkRequests()` is how many requests reached the SDK's path.
 */
function countingDirectClient(options: ClientOptions & { maxAttempts?: number }) {
  const inner = new DynamoDBClient(options);
  let count = 0;
  const client = answerGetItemDirectly(
    new DynamoDBClient({
      ...options,
      requestHandler: {
        handle: (...args: Parameters<typeof inner.config.requestHandler.handle>) => {
          count++;
          return inner.config.requestHandler.handle(...args);
        },
      },
    }),
    options.endpoint,
  );
  return {
    client,
    sdkRequests: () => count,
    resetCount: () => {
      count = 0;
    },
    destroy: () => {
      client.destroy();
      inner.destroy();
    },
  };
}

describe('the direct GetItem against DynamoDB Local', () => {
  const table = `direct-get-${process.pid}-${Date.now()}`;
  const endpoint = inject('ddbEndpoint');
  const options = { region: 'us-east-1', endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  const sdk = new DynamoDBClient(options);
  const counted = countingDirectClient(options);
  const direct = counted.client;

  const items = {
    plain: { pk: { S: 'USER#1' }, sk: { S: 'USER' }, name: { S: 'Ünïcode "quoted" \u2028' }, n: { N: '42.5' } },
    everyType: {
      pk: { S: 'ALL' },
      sk: { S: 'TYPES' },
      b: { B: new Uint8Array([0, 1, 2, 255]) },
      bs: { BS: [new Uint8Array([1]), new Uint8Array([2, 3])] },
      ss: { SS: ['a', 'b'] },
      ns: { NS: ['1', '2.5'] },
      bool: { BOOL: false },
      nothing: { NULL: true },
      list: { L: [{ S: 'x' }, { B: new Uint8Array([9]) }, { M: { inner: { B: new Uint8Array([7, 7]) } } }] },
      map: { M: { B: { S: 'a map key named B' }, deep: { M: { n: { N: '-1e3' } } } } },
    },
  };

  beforeAll(async () => {
    await sdk.send(
      new CreateTableCommand({
        TableName: table,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
      }),
    );
    for (const item of Object.values(items)) await sdk.send(new PutItemCommand({ TableName: table, Item: item }));
  });
  afterAll(async () => {
    await sdk.send(new DeleteTableCommand({ TableName: table }));
    sdk.destroy();
    counted.destroy();
  });

  const reads: Array<[string, GetItemCommandInput]> = [
    ['a plain item', { TableName: table, Key: { pk: { S: 'USER#1' }, sk: { S: 'USER' } } }],
    ['every attribute type', { TableName: table, Key: { pk: { S: 'ALL' }, sk: { S: 'TYPES' } }, ConsistentRead: true }],
    ['no item', { TableName: table, Key: { pk: { S: 'USER#2' }, sk: { S: 'USER' } } }],
    [
      'a projection',
      {
        TableName: table,
        Key: { pk: { S: 'ALL' }, sk: { S: 'TYPES' } },
        ProjectionExpression: '#b, ss, #list[2]',
        ExpressionAttributeNames: { '#b': 'b', '#list': 'list' },
      },
    ],
  ];

  for (const [name, input] of reads) {
    it(`answers ${name} as the SDK does, without the SDK's request`, async () => {
      counted.resetCount();
      const ours = await direct.send(new GetItemCommand(input));
      const theirs = await sdk.send(new GetItemCommand(input));
      expect(counted.sdkRequests()).toBe(0);
      expect(ours.Item).toEqual(theirs.Item);
      expect(ours.$metadata.httpStatusCode).toBe(200);
    });
  }

  it('leaves an error to the SDK, which throws its typed exception', async () => {
    counted.resetCount();
    const missing = direct.send(
      new GetItemCommand({ TableName: `${table}-missing`, Key: { pk: { S: 'a' }, sk: { S: 'b' } } }),
    );
    await expect(missing).rejects.toBeInstanceOf(ResourceNotFoundException);
    expect(counted.sdkRequests()).toBeGreaterThan(0);
  });

  it('leaves a request the socket loses to the SDK (a keep-alive socket closed while frozen)', async () => {
    // A server that drops every connection: the direct request fails on the socket, then the
    // SDK's own request (and its retries) reach the same server and fail as the SDK reports it.
    const dropping = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(dropping.address() as AddressInfo).port}`;
    const dropped = countingDirectClient({ ...options, endpoint: url, maxAttempts: 2 });
    const client = dropped.client;
    try {
      const read = client.send(
        new GetItemCommand({ TableName: table, Key: { pk: { S: 'USER#1' }, sk: { S: 'USER' } } }),
      );
      await expect(read).rejects.toThrow();
      expect(dropped.sdkRequests()).toBe(2);
    } finally {
      dropped.destroy();
      dropping.close();
    }
  });

  it('leaves binary keys and other commands to the SDK', async () => {
    counted.resetCount();
    // A binary key is refused by this table's schema: the SDK's request, the SDK's error.
    const binaryKey = direct.send(
      new GetItemCommand({ TableName: table, Key: { pk: { B: new Uint8Array([1]) }, sk: { S: 'x' } } }),
    );
    await expect(binaryKey).rejects.toThrow();
    expect(counted.sdkRequests()).toBe(1);
    const described = await direct.send(new DescribeTableCommand({ TableName: table }));
    expect(described.Table?.TableName).toBe(table);
    expect(counted.sdkRequests()).toBe(2);
  });
});
