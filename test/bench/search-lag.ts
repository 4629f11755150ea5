/**
 * The lag from a write to a searchable result, end to end on a local stack of its own: guides
 * (1,000 and 10,000) seeded straight into the table reach the index through the table's stream
 * like any write; once the indexer has caught up, a guide is created over HTTP and GET /search
 * is polled (50 ms) until it finds it, five times. While the seeded guides are indexed, a cheap
 * request (GET /health) is sent every 100 ms and its slowest answer kept: the indexer works in a
 * thread of its own (decision 290), so it should stay near a request's own time. Part of
 * `npm run bench -- --all`; alone: `npx tsx test/bench/search-lag.ts [count...]`.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { guideToItem } from '../../shared/db/entities/guide.ts';
import { MERGE_CAP } from '../../shared/search/index-store.ts';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';
import { benchGuide } from './guide-list-latency.ts';
import { writeItems } from './seed-table.ts';
import { words } from './search.ts';
import { runsAlone } from './alone.ts';

const FIRST_GUIDEID = 2_000_000;
const TRIALS = 5;

function* seededGuides(count: number): Generator<Record<string, unknown>> {
  for (let guideid = FIRST_GUIDEID; guideid < FIRST_GUIDEID + count; guideid++) {
    // About the text of a guide of 8 steps: the step lines' words are in the introduction here.
    yield guideToItem({ ...benchGuide(guideid, 1), title: words(5), summary: words(15), introduction_raw: words(340) });
  }
}

const clients = new WeakMap<RunningStack, DynamoDBDocumentClient>();

async function readHead(stack: RunningStack): Promise<Record<string, unknown> | undefined> {
  let client = clients.get(stack);
  if (!client) {
    client = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint: stack.ddbEndpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
    );
    clients.set(stack, client);
  }
  const head = await client.send(new GetCommand({ TableName: 'stepwise', Key: { pk: 'SEARCH_INDEX', sk: 'HEAD' } }));
  return head.Item;
}

/** The head's version, and the documents its delta holds (merges change the version but not this way). */
async function headState(stack: RunningStack): Promise<{ version: number; documents: number }> {
  const head = await readHead(stack);
  return { version: Number(head?.version ?? 0), documents: Number(head?.documents ?? 0) };
}

async function indexedDocuments(stack: RunningStack): Promise<number> {
  const head = { Item: await readHead(stack) };
  const delta = head.Item?.delta as { documents?: number; tombstones?: number } | undefined;
  // Caught up once every guide is in and the merges the bulk load started are done (decision 289).
  if (!delta || Number(delta.documents) + Number(delta.tombstones) > MERGE_CAP) return 0;
  return Number(head.Item?.documents ?? 0);
}

async function call(
  stack: RunningStack,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, any> }> {
  let response: Response;
  try {
    response = await send(stack, method, path, token, body);
  } catch {
    // A kept-alive socket the server closed meanwhile resets: once more, fresh.
    response = await send(stack, method, path, token, body);
  }
  return { status: response.status, body: (await response.json().catch(() => ({}))) as Record<string, any> };
}

function send(stack: RunningStack, method: string, path: string, token?: string, body?: unknown): Promise<Response> {
  return fetch(`${stack.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `api ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

interface Trial {
  /** From the answer of POST /guides to the first GET /search that finds the guide. */
  lag: number;
  /** ...to the first head holding one document more: the stream poll and the indexer's write (its part of the lag). */
  indexed: number;
}

async function lagAt(count: number): Promise<{ catchUpS: number; trials: Trial[]; slowestRequestMs: number }> {
  const stack = await startStackProcess({ LOG_LEVEL: 'ERROR' });
  try {
    const started = Date.now();
    let indexing = true;
    let slowestRequestMs = 0;
    const probe = (async () => {
      while (indexing) {
        const sent = performance.now();
        await call(stack, 'GET', '/health');
        slowestRequestMs = Math.max(slowestRequestMs, performance.now() - sent);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    await writeItems(stack.ddbEndpoint, seededGuides(count));
    while ((await indexedDocuments(stack)) < count) await new Promise((resolve) => setTimeout(resolve, 500));
    indexing = false;
    await probe;
    const catchUpS = (Date.now() - started) / 1000;
    const admin = (
      await call(stack, 'POST', '/user/token', undefined, { email: 'admin@example.com', password: 'stepwise-admin' })
    ).body.authToken as string;
    const category = `Lag ${randomUUID().slice(0, 8)}`;
    await call(stack, 'POST', '/wikis', admin, { namespace: 'CATEGORY', title: category, contents: 'x' });
    // The search container loads the language's shards once (the cold load, measured on its own in
    // test/bench/search.ts): before the trials, so the first one measures a change, not a cold start.
    await call(stack, 'GET', '/search/warm', admin);
    const trials: Trial[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const word = `lag${randomUUID().replace(/-/g, '').slice(0, 10)}`;
      const before = await headState(stack);
      const created = await call(stack, 'POST', '/guides', admin, { category, type: 'how-to', title: `Find ${word}` });
      if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
      const written = Date.now();
      let indexed: number | undefined;
      // The head is watched beside the searches: when the change is in the store, the rest is the reader's.
      const watch = (async () => {
        while (indexed === undefined && Date.now() - written < 120_000) {
          const now = await headState(stack);
          if (now.documents > before.documents && now.version > before.version) indexed = Date.now() - written;
          else await new Promise((resolve) => setTimeout(resolve, 25));
        }
      })();
      while ((await call(stack, 'GET', `/search/${word}`, admin)).body.totalResults !== 1) {
        if (Date.now() - written > 120_000) throw new Error(`not searchable after 120 s (${count} guides)`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const lag = Date.now() - written;
      await watch;
      trials.push({ lag, indexed: indexed ?? lag });
    }
    return { catchUpS, trials, slowestRequestMs };
  } finally {
    clients.get(stack)?.destroy();
    await stack.stop();
  }
}

export async function searchLagBench(counts = [1000, 10_000]): Promise<void> {
  console.log('\n== Search: from a write to a searchable result (local stack, stream poll 100 ms) ==');
  console.log(
    'guides    seeded and indexed    lag median    lag max    in the store (median / max)' +
      '    slowest GET /health while indexing    trials (in the store / found, ms)',
  );
  for (const count of counts) {
    const { catchUpS, trials, slowestRequestMs } = await lagAt(count);
    const sorted = [...trials.map((trial) => trial.lag)].sort((a, b) => a - b);
    const stored = [...trials.map((trial) => trial.indexed)].sort((a, b) => a - b);
    const median = (values: number[]) => String(values[Math.floor(values.length / 2)]).padStart(6);
    console.log(
      `${String(count).padStart(6)}    ${catchUpS.toFixed(0).padStart(8)} s` +
        `          ${median(sorted)} ms   ${String(sorted.at(-1)).padStart(6)} ms` +
        `    ${median(stored)} / ${stored.at(-1)} ms    ${slowestRequestMs.toFixed(0)} ms` +
        `    ${trials.map((trial) => `${trial.indexed}/${trial.lag}`).join(' ')}`,
    );
  }
}

if (runsAlone(import.meta)) {
  const counts = process.argv
    .slice(2)
    .map(Number)
    .filter((count) => count > 0);
  await searchLagBench(counts.length ? counts : undefined);
}
