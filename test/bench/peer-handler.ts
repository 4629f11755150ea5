/**
 * The bench's peer for GET /users/{userid}: what a minimal idiomatic Lambda handler does with
 * the same reads — middy, the DocumentClient with its defaults, the token looked up by hash and
 * kept for a second (as ours is, decision 106), one GetCommand for the user, JSON.stringify of
 * a profile. No route table, no validation library, no Powertools. test/bench/handler-cpu.ts
 * compares the users function's CPU per request to this one's.
 */
import { createHash } from 'node:crypto';
import middy from '@middy/core';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

const table = process.env.TABLE_NAME ?? 'stepwise';
const db = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    region: process.env.AWS_REGION ?? 'us-east-1',
    ...(process.env.DDB_ENDPOINT ? { endpoint: process.env.DDB_ENDPOINT } : {}),
  }),
);

const callers = new Map<string, { userid: number; until: number }>();

async function callerOf(header: string | undefined): Promise<number | undefined> {
  const token = header?.startsWith('api ') ? header.slice(4) : undefined;
  if (!token) return undefined;
  const cached = callers.get(token);
  if (cached && cached.until > Date.now()) return cached.userid;
  const hash = createHash('sha256').update(token).digest('hex');
  const userid = Number(token.split('.')[1]);
  const { Responses } = await db.send(
    new BatchGetCommand({
      RequestItems: {
        [table]: {
          Keys: [
            { pk: `TOKEN#${hash}`, sk: 'TOKEN' },
            { pk: `USER#${userid}`, sk: 'USER' },
          ],
        },
      },
    }),
  );
  if (!Responses?.[table]?.some((item) => item.pk === `TOKEN#${hash}`)) return undefined;
  callers.set(token, { userid, until: Date.now() + 1000 });
  return userid;
}

const json = (statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use({
    onError: async (request) => {
      request.response = json(500, { message: 'Internal Server Error' });
    },
  })
  .handler(async (event) => {
    const caller = await callerOf(event.headers.authorization);
    if (caller === undefined) return json(401, { message: 'Authentication required' });
    const userid = Number(event.pathParameters?.userid);
    if (!Number.isSafeInteger(userid) || userid < 1) return json(404, { message: 'Not found' });
    const { Item } = await db.send(new GetCommand({ TableName: table, Key: { pk: `USER#${userid}`, sk: 'USER' } }));
    if (!Item) return json(404, { message: 'Not found' });
    return json(200, {
      userid: Item.userid,
      username: Item.username,
      unique_username: Item.unique_username ?? null,
      join_date: Item.join_date,
      image: Item.image ?? null,
      reputation: Item.reputation ?? 1,
      about_raw: Item.about_raw ?? '',
      privileges: Item.privileges ?? [],
      teams: Item.teams ? [...Item.teams] : [],
    });
  });
