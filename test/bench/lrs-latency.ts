/**
 * Bench section: the LRS (docs/lrs.md) against issue 38's goals on the local stack: a single
 * statement POST ≤ 50 ms median, a batch of 100 ≤ 500 ms, GET /xapi/statements?registration= ≤
 * 100 ms median with many statements stored (STEPWISE_BENCH_LRS_STATEMENTS, default 10,000, in
 * 100 registrations), a state document PUT and GET ≤ 30 ms. Requests one at a time, through the
 * gateway. Alone: `npx tsx test/bench/lrs-latency.ts` (starts a stack of its own).
 */
import { randomUUID } from 'node:crypto';
import { startStackProcess } from '../support/local-stack-process.ts';

interface Stack {
  url: string;
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

function statement(registration: string, n: number) {
  return {
    actor: { mbox: `mailto:bench-${n % 500}@example.com` },
    verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
    object: { id: `http://example.com/bench/activities/${n % 50}` },
    context: { registration, contextActivities: { parent: [{ id: 'http://example.com/bench/course' }] } },
  };
}

async function timed(run: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  const response = await run();
  const text = await response.text();
  if (response.status >= 300) throw new Error(`LRS bench: ${response.status} ${text.slice(0, 300)}`);
  return performance.now() - started;
}

export async function lrsBench(stack: Stack, adminToken: string): Promise<void> {
  const site = stack.url.replace(/\/api\/2\.0$/, '');
  const made = await fetch(`${stack.url}/admin/lrs_credentials`, {
    method: 'POST',
    headers: { authorization: `api ${adminToken}` },
    body: JSON.stringify({ name: 'bench', scopes: ['all'] }),
  });
  const { key, secret } = (await made.json()) as { key: string; secret: string };
  const headers = {
    authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`,
    'x-experience-api-version': '1.0.3',
    'content-type': 'application/json',
  };
  const post = (body: unknown) =>
    fetch(`${site}/xapi/statements`, { method: 'POST', headers, body: JSON.stringify(body) });

  const total = Number(process.env.STEPWISE_BENCH_LRS_STATEMENTS ?? 10_000);
  const registrations = Array.from({ length: 100 }, () => randomUUID());
  const batches = Array.from({ length: Math.ceil(total / 100) }, (_, b) =>
    Array.from({ length: 100 }, (_, i) => statement(registrations[(b * 100 + i) % 100]!, b * 100 + i)),
  );
  const seedStarted = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let batch = batches.shift(); batch; batch = batches.shift()) await timed(() => post(batch));
    }),
  );
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  const single: number[] = [];
  for (let i = 0; i < 50; i++) single.push(await timed(() => post(statement(registrations[0]!, i))));
  const batch: number[] = [];
  for (let i = 0; i < 10; i++)
    batch.push(await timed(() => post(Array.from({ length: 100 }, (_, n) => statement(randomUUID(), n)))));
  const byRegistration: number[] = [];
  for (let i = 0; i < 50; i++)
    byRegistration.push(
      await timed(() => fetch(`${site}/xapi/statements?registration=${registrations[1 + (i % 99)]}`, { headers })),
    );
  const agent = encodeURIComponent(JSON.stringify({ mbox: 'mailto:bench-doc@example.com' }));
  const state = `${site}/xapi/activities/state?activityId=http://example.com/bench/course&agent=${agent}&stateId=s`;
  const putDoc: number[] = [];
  const getDoc: number[] = [];
  for (let i = 0; i < 50; i++) {
    putDoc.push(await timed(() => fetch(state, { method: 'PUT', headers, body: JSON.stringify({ page: i }) })));
    getDoc.push(await timed(() => fetch(state, { headers })));
  }
  const row = (name: string, values: number[], goal: number) => {
    const median = percentile(values, 0.5);
    const verdict = median <= goal ? 'ok' : 'OVER';
    const figures = `${median.toFixed(1).padStart(8)} ms ${percentile(values, 0.95).toFixed(1).padStart(8)} ms`;
    console.log(`${name.padEnd(44)} ${figures}   ≤ ${goal} ms ${verdict}`);
  };
  console.log(`\n== LRS (docs/lrs.md): ${total} statements seeded in ${seedSeconds.toFixed(1)} s ==`);
  console.log(`${'request'.padEnd(44)} ${'median'.padStart(11)} ${'p95'.padStart(11)}   goal`);
  row('POST /xapi/statements (one)', single, 50);
  row('POST /xapi/statements (batch of 100)', batch, 500);
  row('GET /xapi/statements?registration= (100 each)', byRegistration, 100);
  row('PUT /xapi/activities/state', putDoc, 30);
  row('GET /xapi/activities/state', getDoc, 30);
}

if (process.argv[1]?.endsWith('lrs-latency.ts')) {
  const stack = await startStackProcess({ LOG_LEVEL: 'ERROR' });
  try {
    const login = await fetch(`${stack.url}/user/token`, {
      method: 'POST',
      body: JSON.stringify({ email: 'admin@example.com', password: 'stepwise-admin' }),
    });
    const { authToken } = (await login.json()) as { authToken: string };
    await lrsBench(stack, authToken);
  } finally {
    await stack.stop();
  }
}
