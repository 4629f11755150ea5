/**
 * DynamoDB round trips of the guide lists, held to shared/db/ACCESS-PATTERNS.md ("Round trips per
 * request"; `npm run bench` measures the whole table): a read added beside a list's shared BatchGet
 * fails here. In this process, against the test stack's table: the user-guides group's handler and
 * the summaries' read-model, every DynamoDB command counted through the SDK client hook (one entry
 * per attempt, as the bench counts). Fixtures are made over HTTP.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { createUser, loginAdmin, type TestUser } from '../support/api.ts';
import { countDynamoDbCommands, type DynamoDbCommands } from '../support/dynamodb-commands.ts';
import { apiEvent } from '../bench/api-event.ts';
import { createGuide, scheduleGuides } from './guide-fixtures.ts';

let dynamoDb: DynamoDbCommands;
let admin: string;
let writer: TestUser;
let guides: Array<{ guideid: number }>;
let prsid: number | undefined;

beforeAll(async () => {
  Object.assign(process.env, {
    DDB_ENDPOINT: inject('ddbEndpoint'),
    S3_ENDPOINT: inject('s3Endpoint'),
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
  reloadConfig();
  // The token's lookup (a BatchGet of TOKEN#…) is cached for a second (decision 106), as the bench
  // warms it away; on a loaded machine it may expire between two calls, so it is not counted.
  dynamoDb = countDynamoDbCommands((input) => !JSON.stringify(input ?? {}).includes('"TOKEN#'));
  admin = await loginAdmin();
  writer = await createUser({ privileges: ['Author'] });
  guides = [await createGuide(writer.token), await createGuide(writer.token)];
});

afterAll(() => dynamoDb.uninstall());

/** The commands `run` sends. */
const counted = <T>(run: () => Promise<T>) => dynamoDb.during(run);

/** Puts the writer's first guide in a new schedule (once); its prsid. */
async function scheduleFirstGuide(): Promise<number> {
  if (prsid !== undefined) return prsid;
  prsid = (await scheduleGuides(admin, writer.userid, [guides[0].guideid])).prsid;
  return prsid;
}

describe('guide lists: round trips', () => {
  it('GET /users/{userid}/guides: links, then guides and claims in one BatchGet; schedules when found', async () => {
    type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number; body: string }>;
    const handler = (await import('../../functions/user-guides/handler.ts')).handler as unknown as Handler;
    const event = () =>
      apiEvent('GET', '/users/{userid}/guides', { token: writer.token, params: { userid: String(writer.userid) } });
    const list = async () => {
      const answer = await handler(event(), {});
      expect(answer.statusCode).toBe(200);
      return JSON.parse(answer.body) as Array<{ guideid: number; periodicReviewSchedule: { prsid: number } | null }>;
    };
    await list(); // warm, as the bench: authentication cached (the author is the caller: no user read)
    const plain = await counted(list);
    expect(plain.commands).toEqual(['Query', 'BatchGetItem']);
    expect(plain.result.map((summary) => summary.periodicReviewSchedule)).toEqual([null, null]);

    const scheduleid = await scheduleFirstGuide();
    await list();
    const scheduled = await counted(list);
    expect(scheduled.commands).toEqual(['Query', 'BatchGetItem', 'BatchGetItem']);
    expect(scheduled.result.map((summary) => summary.periodicReviewSchedule?.prsid ?? null)).toEqual([
      scheduleid,
      null,
    ]);
  });

  it('summaries of guides read otherwise (GET /guides): authors not cached and claims in one BatchGet', async () => {
    const { getGuides } = await import('../../shared/db/entities/guide.ts');
    const { guideSummaries } = await import('../../shared/read-models/guide-pages.ts');
    // An author this process never authenticated (the HTTP calls went to the stack): their user is read.
    const other = await createUser({ privileges: ['Author'] });
    const otherGuide = await createGuide(other.token);
    await scheduleFirstGuide();
    const [scheduled, plain] = await getGuides([guides[0].guideid, otherGuide.guideid]);
    const one = await counted(() => guideSummaries([plain]));
    expect(one.commands).toEqual(['BatchGetItem']);
    expect(one.result[0]).toMatchObject({ guideid: otherGuide.guideid, periodicReviewSchedule: null });
    // The author was read in that same BatchGet.
    expect(one.result[0].username).toEqual(expect.any(String));
    // A claim found: the schedule's name is a second read.
    const both = await counted(() => guideSummaries([scheduled, plain]));
    expect(both.commands).toEqual(['BatchGetItem', 'BatchGetItem']);
    expect(both.result.map((summary) => summary.periodicReviewSchedule?.prsid ?? null)).toEqual([prsid, null]);
  });
});
