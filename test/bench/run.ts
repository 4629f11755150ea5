/**
 * `npm run bench`: numbers from one run, side by side, in under five minutes on the 2-core
 * project machine (decision 144):
 * 1. (test/bench/bundle-cold-start.ts) every deployed bundle as synthesized: size and import time.
 * 2. (test/bench/request-path.ts) GET /users/{another user} through the gateway against a raw
 *    GetItem of the same item on the same engine, interleaved in short rounds: on `npm start`'s
 *    file-backed DynamoDB Local (temp data dir) and on the in-memory one; and issue 36's way,
 *    sequential 10 s runs against a raw GetItem on the in-memory engine (decision 339).
 * 3. (test/bench/round-trips.ts) DynamoDB round trips per request of 20 routes against the
 *    minimums of shared/db/ACCESS-PATTERNS.md (decision 182).
 * 4. (test/bench/handler-cpu.ts) the users bundle's CPU per request against a minimal idiomatic
 *    middy + DocumentClient handler, tracing off (goal ≤ 1.3x) and on (decisions 182, 184).
 * 4b. (test/bench/guide-pdf.ts) the worst guide PDF the field limits allow: time, CPU and the PDF
 *    child's peak memory (goal <= 2 s, <= 256 MB; decision 255).
 * 4c. (test/bench/dozuki-load.ts) Dozuki's own load-test workload: seed, then 50 users over its
 *    journeys (guide page 50%, search 30%, course 15%, guide API 5%): p95 and failed checks per
 *    journey (goal p95 <= 250 ms, none failed; issue 39). 30 s in this run; `-- --dozuki-long`
 *    runs it as the harness does (30 s ramp, 5 min hold).
 * `npm run bench -- --all` adds the sections of other issues (several minutes more):
 * 5. (test/bench/guide-list-latency.ts) GET /guides page latency with 100 vs 10,000 guides.
 * 5b. (test/bench/whole-list.ts) the whole-list answers the apps read (10,000 favorites and authored
 *    guides): time, and size plain and gzip against Lambda's 6 MB limit.
 * 6. (test/bench/module-import.ts) one import of a 50 MB module package through the pipeline.
 * 7. (test/bench/course-assignees-latency.ts) a course's team assignees page, teams of 10 vs 1,000 members.
 * 8. (test/bench/media-bombs.ts) hostile images (SVG filter, 12000 px PNG/WebP/GIF, a PNG bomb)
 *    through each upload route: time to refusal, peak RSS of the stack and its image children.
 * 9. (test/bench/site-transfer.ts) site export and import of 1,000 and 10,000 guides: time and peak
 *    memory (about 5 minutes alone: `npx tsx test/bench/site-transfer.ts`).
 * 10. (test/bench/search.ts) the search index at 1,000 and 10,000 guides: object size, cold load,
 *    query p50/p99, the indexer's write (in process; `npx tsx test/bench/search.ts` alone); and
 *    (test/bench/search-lag.ts) the lag from a write to a searchable result on a local stack.
 * 11. (test/bench/lrs-latency.ts) the LRS: statement POSTs (one, a batch of 100), GET by registration
 *    with 10,000 statements stored, state document PUT and GET.
 * 12. (test/bench/module-player.ts) the module player: SCORM commit latency, and the time until the
 *    player page shows the SCO in Chromium.
 * 13. (test/bench/notice-sweep.ts) the notice sweep over open acknowledgements, 1 % of them due: 2,000
 *    in the quick run, 100,000 with --all (STEPWISE_BENCH_NOTICE_ACKS sets it; goal ≤ 30 s, issue 43).
 * 14. (test/bench/page-paint.ts) the pages a person opens first (a guide page, /Manage, the guide
 *    editor): first contentful paint in Chromium (goal ≤ 1 s) and each page's script gzipped (issue 42).
 * The machine's load average is printed at the start and the end: figures taken under load are
 * noisy, ratios less so than absolute rates.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../infra/repo-paths.ts';
import { startStackProcess } from '../support/local-stack-process.ts';
import { measureBundles, printBundles, synthesize } from './bundle-cold-start.ts';
import { courseAssigneesLatency } from './course-assignees-latency.ts';
import { guideListLatency } from './guide-list-latency.ts';
import { guidePdfBench } from './guide-pdf.ts';
import { CI_SIZE, dozukiLoadBench, HARNESS_SIZE } from './dozuki-load.ts';
import { wholeListBench } from './whole-list.ts';
import { mediaBombsBench } from './media-bombs.ts';
import { moduleImportBench } from './module-import.ts';
import { siteTransferBench } from './site-transfer.ts';
import { searchBench } from './search.ts';
import { searchLagBench } from './search-lag.ts';
import { lrsBench } from './lrs-latency.ts';
import { modulePlayerBench } from './module-player.ts';
import { noticeSweepBench } from './notice-sweep.ts';
import { pagePaintBench } from './page-paint.ts';
import { adminToken } from './alone.ts';
import { measureHandlerCpu, printHandlerCpu } from './handler-cpu.ts';
import {
  measureRequestPath,
  measureSequential,
  printRequestPath,
  printSequential,
  startFileBackedStack,
} from './request-path.ts';
import { measureRoundTrips, printRoundTrips } from './round-trips.ts';

const ALL = process.argv.includes('--all');
/** Length of each throughput measurement of the --all sections. */
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const started = Date.now();
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');
const loadAtStart = load();
console.log(`bench: load average (1 / 5 / 15 min) at start: ${loadAtStart}`);

// ---- Deployed bundles: synthesized first, while no stack competes for the CPU ----
const cdkOut = join(REPO_ROOT, '.bench', 'cdk.out');
synthesize(cdkOut);
const bundles = measureBundles(cdkOut);

// ---- Request path: npm start as a newcomer runs it (file-backed), then the in-memory stack ----
const fileBacked = await startFileBackedStack();
let fileFigures: Awaited<ReturnType<typeof measureRequestPath>>;
let sequentialFigures: Awaited<ReturnType<typeof measureSequential>>;
// The notice sweep runs only when the bench asks (section 12), not on the stack's own timer.
let stack: Awaited<ReturnType<typeof startStackProcess>>;
try {
  fileFigures = await measureRequestPath(fileBacked.stack, 'npm start (file-backed DynamoDB Local)');
  // Issue 36's way too (decision 339): the raw side on the in-memory stack's engine, started now.
  stack = await startStackProcess({
    LOG_LEVEL: 'ERROR',
    STEPWISE_NOTICE_SWEEP_MS: '0',
    STEPWISE_CMI5_ABANDON_SWEEP_MS: '0',
  });
  sequentialFigures = await measureSequential(fileBacked.stack, stack);
} finally {
  await fileBacked.cleanup();
}

try {
  const memoryFigures = await measureRequestPath(stack, 'in-memory DynamoDB Local (tests)');
  const roundTrips = measureRoundTrips(stack);
  const handlerCpu = await measureHandlerCpu(stack, cdkOut);
  console.log(`\nbench: node ${process.version}`);
  printRequestPath([fileFigures, memoryFigures]);
  printSequential(sequentialFigures);
  console.log(
    'Note: on 2 cores the gateway runs share them between the load generator, the API process and DynamoDB Local;\n' +
      'the raw loop shares them with one process.',
  );
  printRoundTrips(roundTrips);
  printHandlerCpu(handlerCpu);
  printBundles(bundles);
  // ---- Guide PDF: the worst guide the field limits allow (issue 35) ----
  await guidePdfBench();
  // ---- Dozuki's load-test workload: its journeys, mix and pacing at 50 users (issue 39) ----
  await dozukiLoadBench({
    site: stack.url.replace(/\/api\/2\.0$/, ''),
    ...(process.argv.includes('--dozuki-long') ? HARNESS_SIZE : CI_SIZE),
  });
  // ---- Notices: the sweep over open acknowledgements (issue 43) ----
  {
    const authToken = await adminToken(stack);
    const acks = Number(process.env.STEPWISE_BENCH_NOTICE_ACKS ?? (ALL ? 100_000 : 2_000));
    await noticeSweepBench(stack, authToken, acks);
    // ---- Pages: first paint and script size of a guide page, /Manage and the editor (issue 42) ----
    await pagePaintBench(stack, authToken);
  }

  if (ALL) {
    const authToken = await adminToken(stack);
    // ---- Guides: GET /guides page latency, 100 vs 10,000 guides stored ----
    await guideListLatency(stack, authToken, 1, DURATION_S);
    // ---- Whole lists: 10,000 favorites and authored guides in one answer, plain and gzip ----
    await wholeListBench(stack, authToken, 1, 1_000_000, true);
    // ---- Modules: import of a 50 MB package through the local pipeline, time and peak memory ----
    await moduleImportBench(stack, authToken);
    // ---- Courses: a team's assignees page with 10 vs 1,000 members ----
    await courseAssigneesLatency(stack, authToken, DURATION_S);
    // ---- Media bombs: hostile images refused, time and peak memory (issue 23) ----
    await mediaBombsBench(stack, authToken);
    // ---- The LRS: statement writes and reads, documents (issue 38, docs/lrs.md) ----
    await lrsBench(stack, authToken);
    // ---- The module player: commit latency, the page showing the SCO (issue 37, decision 306) ----
    await modulePlayerBench(stack, authToken);
  }
} finally {
  await stack.stop();
}
// ---- Site export and import, each on stacks of its own (test/bench/site-transfer.ts) ----
if (ALL) await siteTransferBench();
// ---- The search index, in process (test/bench/search.ts) ----
if (ALL) await searchBench();
if (ALL) await searchLagBench();
console.log(
  `\nbench finished in ${((Date.now() - started) / 1000).toFixed(0)} s; load average at start ${loadAtStart}, ` +
    `at end ${load()}${ALL ? '' : ' (guides, module import, course assignees, site transfer: npm run bench -- --all)'}`,
);
