/**
 * Bench section: a team of 1,000 members assigned to a course answers its assignees page
 * (GET /course_assignees/course/{wikiid}/teams/{teamid}?limit=10) as fast as a team of 10 —
 * a page is one Query of the assignment's rows plus the team and assignment reads, O(page).
 * Members are seeded straight into DynamoDB (user and member items, as the team code writes
 * them); the assignments go through the API, which writes one stored row per member.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { localDb } from '../support/local-db.ts';
import { pageLatency } from './alone.ts';

const TABLE = 'stepwise';
const FIRST_USERID = 2_000_000;
const pad = (id: number) => String(id).padStart(12, '0');

interface Stack {
  url: string;
  ddbEndpoint: string;
}

async function call(stack: Stack, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${stack.url}${path}`, {
    method,
    headers: { authorization: `api ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

async function batchPut(db: DynamoDBDocumentClient, items: Array<Record<string, unknown>>): Promise<void> {
  const batches: Array<Array<Record<string, unknown>>> = [];
  for (let start = 0; start < items.length; start += 25) batches.push(items.slice(start, start + 25));
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let batch = batches.shift(); batch; batch = batches.shift()) {
        let pending: Array<Record<string, unknown>> | undefined = batch.map((Item) => ({ PutRequest: { Item } }));
        while (pending && pending.length > 0) {
          const result = await db.send(new BatchWriteCommand({ RequestItems: { [TABLE]: pending as never } }));
          pending = result.UnprocessedItems?.[TABLE] as Array<Record<string, unknown>> | undefined;
        }
      }
    }),
  );
}

/** `count` users straight into the table, each a member of the team. */
async function seedMembers(
  db: DynamoDBDocumentClient,
  teamid: number,
  firstUserid: number,
  count: number,
): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  const items: Array<Record<string, unknown>> = [];
  for (let index = 0; index < count; index++) {
    const userid = firstUserid + index;
    items.push({
      pk: `USER#${userid}`,
      sk: 'USER',
      entity: 'User',
      gsi1pk: 'USERS',
      gsi1sk: pad(userid),
      userid,
      username: `Bench trainee ${userid}`,
      unique_username: `bench_${userid}`,
      email: `bench.${userid}@example.com`,
      password_hash: '!',
      privileges: ['User'],
      teams: new Set([teamid]),
      join_date: now,
      reputation: 1,
      image: null,
      location: null,
      summary: null,
      about_raw: '',
      sso_userid: null,
      employee_id: null,
      created_by: null,
      flags: [],
      badge_counts: { bronze: 0, silver: 0, gold: 0, total: 0 },
      search_tokens: [],
      version: 1,
    });
    items.push({
      pk: `TEAM#${teamid}`,
      sk: `MEMBER#${pad(userid)}`,
      entity: 'TeamMember',
      teamid,
      userid,
      joined: now,
    });
  }
  await batchPut(db, items);
  await db.send(
    new UpdateCommand({
      TableName: TABLE,
      Key: { pk: `TEAM#${teamid}`, sk: 'TEAM' },
      UpdateExpression: 'ADD member_count :n, reputation :n',
      ExpressionAttributeValues: { ':n': count },
    }),
  );
}

export async function courseAssigneesLatency(stack: Stack, token: string, seconds: number): Promise<void> {
  const db = localDb(stack.ddbEndpoint);
  await call(stack, token, 'POST', '/wikis', { namespace: 'CATEGORY', title: 'Bench courses', contents: 'Bench.' });
  const guide = await call(stack, token, 'POST', '/guides', {
    category: 'Bench courses',
    type: 'how-to',
    title: 'Bench stage guide',
  });
  const course = await call(stack, token, 'POST', '/courses', {
    title: 'Bench course',
    contents: 'Bench.',
    stages: [{ doctype: 'guide', docid: guide.guideid }],
  });

  const sizes = [10, 1000];
  const results = [];
  let firstUserid = FIRST_USERID;
  for (const size of sizes) {
    const team = await call(stack, token, 'POST', '/teams', { name: `Bench team of ${size}` });
    await seedMembers(db, team.teamid, firstUserid, size);
    firstUserid += size;
    const assignStarted = Date.now();
    await call(stack, token, 'POST', '/course_assignments', { wikiid: course.wikiid, teamid: team.teamid });
    const assignSeconds = (Date.now() - assignStarted) / 1000;
    const page = `${stack.url}/course_assignees/course/${course.wikiid}/teams/${team.teamid}?limit=10`;
    const check = await call(
      stack,
      token,
      'GET',
      `/course_assignees/course/${course.wikiid}/teams/${team.teamid}?limit=10`,
    );
    if (check.response.members.length !== 10 || check.response.member_count !== size + 1)
      throw new Error(`unexpected page: ${JSON.stringify(check).slice(0, 300)}`);
    results.push({ size, assignSeconds, first: await pageLatency(page, token, seconds) });
  }

  console.log(
    '\nGET /course_assignees/course/{wikiid}/teams/{teamid}?limit=10 latency (4 concurrent clients, %d s ' +
      'each), teams of 10 vs 1,000 members',
    seconds,
  );
  console.table(
    results.map(({ size, assignSeconds, first }) => ({
      members: size,
      'assign (s, one row per member)': assignSeconds.toFixed(1),
      'mean ms': first.mean.toFixed(2),
      'p99 ms': first.p99,
      errors: first.errors,
    })),
  );
  const ratio = results[1].first.mean / results[0].first.mean;
  console.log(
    `Latency ratio 1,000 / 10 members: ${ratio.toFixed(2)}  (aim <= 1.5: an assignees page costs O(page), not O(team))`,
  );
  db.destroy();
}
