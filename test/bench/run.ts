/**
 * `npm run bench`: numbers from one run, side by side.
 * 1. (test/bench/request-path.ts) GET /users/{another user} through the gateway and the users
 *    handler invoked directly, each against a raw GetItem of the same item on the same engine:
 *    on `npm start`'s file-backed DynamoDB Local (temp data dir) and on the in-memory one.
 * 2. (test/bench/bundle-cold-start.ts) every deployed bundle as synthesized: size and import time.
 * 3. (test/bench/guide-list-latency.ts) GET /guides page latency with 100 vs 10,000 guides.
 * 4. (test/bench/module-import.ts) one import of a 50 MB module package through the pipeline.
 * 5. (test/bench/course-assignees-latency.ts) a course's team assignees page, teams of 10 vs 1,000 members.
 * 6. (test/bench/site-transfer.ts) site export and import of 1,000 and 10,000 guides: time and peak memory.
 * BENCH_SECONDS (default 5) sets each throughput measurement's length.
 */
import { join } from 'node:path';
import { REPO_ROOT } from '../../infra/repo-paths.ts';
import { startStackProcess } from '../support/local-stack-process.ts';
import { measureBundles, printBundles, synthesize } from './bundle-cold-start.ts';
import { guideListLatency } from './guide-list-latency.ts';
import { moduleImportBench } from './module-import.ts';
import { courseAssigneesLatency } from './course-assignees-latency.ts';
import { siteTransferBench } from './site-transfer.ts';
import { measureRequestPath, printRequestPath, startFileBackedStack } from './request-path.ts';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const started = Date.now();

// ---- Deployed bundles: synthesized first, while no stack competes for the CPU ----
const cdkOut = join(REPO_ROOT, '.bench', 'cdk.out');
synthesize(cdkOut);
const bundles = measureBundles(cdkOut);

// ---- Request path: npm start as a newcomer runs it (file-backed), then the in-memory stack ----
const fileBacked = await startFileBackedStack();
let fileFigures: Awaited<ReturnType<typeof measureRequestPath>>;
try {
  fileFigures = await measureRequestPath(fileBacked.stack, 'npm start (file-backed DynamoDB Local)', DURATION_S, {
    direct: true,
    cdkOut,
  });
} finally {
  await fileBacked.cleanup();
}

const stack = await startStackProcess({ LOG_LEVEL: 'ERROR' });
try {
  const memoryFigures = await measureRequestPath(stack, 'in-memory DynamoDB Local (tests)', DURATION_S, {
    direct: false,
  });
  printRequestPath([fileFigures, memoryFigures], DURATION_S);
  console.log(
    'Note: on 2 cores the gateway runs share them between the load generator, the API process and DynamoDB Local;\n' +
      'the raw and direct loops share them with one process.',
  );
  printBundles(bundles);

  const login = await fetch(`${stack.url}/user/token`, {
    method: 'POST',
    body: JSON.stringify({ email: 'admin@example.com', password: 'stepwise-admin' }),
  });
  const { authToken } = (await login.json()) as { authToken: string };

  // ---- Guides: GET /guides page latency, 100 vs 10,000 guides stored (test/bench/guide-list-latency.ts) ----
  await guideListLatency(stack, authToken, 1, DURATION_S);

  // ---- Modules: import of a 50 MB package through the local pipeline, time and peak memory
  // (test/bench/module-import.ts) ----
  await moduleImportBench(stack, authToken);

  // ---- Courses: a team's assignees page with 10 vs 1,000 members (test/bench/course-assignees-latency.ts) ----
  await courseAssigneesLatency(stack, authToken, DURATION_S);
} finally {
  await stack.stop();
}
// ---- Site export and import, each on stacks of its own (test/bench/site-transfer.ts) ----
await siteTransferBench();
console.log(`\nbench finished in ${((Date.now() - started) / 1000).toFixed(0)} s`);
