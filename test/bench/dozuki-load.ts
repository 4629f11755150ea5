/**
 * Bench section: Dozuki's own load-test workload (issue 39; docs/benchmarks.md "Dozuki's load
 * test"), written here from its description: log in once with `POST /user/token`, seed a category,
 * guides and courses through the API, then virtual users loop over its four journeys in its mix
 * and pacing (a random pause of 0-2 s after each):
 * - 50% the guide page `/Guide/<guideid>/x` with `Cookie: PHPSESSID=<authToken>` (any status
 *   below 400 passes; redirects followed, the cookie going along),
 * - 30% `GET /api/2.0/search/<term>?limit=20` (200),
 * - 15% `GET /api/2.0/courses/<courseid>` (below 400),
 * - 5% `GET /api/2.0/guides/<guideid>` (200), the API ones with `Authorization: api <authToken>`.
 * Users ramp up to 50 in the ramp time, hold, and stop. Reported per journey: requests, failed
 * checks, p50/p95/p99 of the whole journey (redirect hops included); the goal is p95 <= 250 ms
 * on the local stack at 50 users, with no failed request (the harness's own threshold: p95 <
 * 2,000 ms, under 2% failed).
 *
 * `npm run bench` runs it in CI's size (10 s ramp, 20 s hold); `npx tsx test/bench/dozuki-load.ts`
 * alone starts a stack and runs it as the harness does (30 s ramp, 5 min hold); with `--url
 * <site root>` against a running `npm start` (admin credentials from STEPWISE_ADMIN_EMAIL and
 * STEPWISE_ADMIN_PASSWORD, else the local stack's). `--short` picks CI's size there too.
 */
import { runsAlone } from './alone.ts';

export interface DozukiLoadOptions {
  /** The site root (no /api/2.0). */
  site: string;
  vus: number;
  rampSeconds: number;
  holdSeconds: number;
  guides: number;
  courses: number;
  email?: string;
  password?: string;
}

export const CI_SIZE = { vus: 50, rampSeconds: 10, holdSeconds: 20, guides: 30, courses: 5 };
export const HARNESS_SIZE = { vus: 50, rampSeconds: 30, holdSeconds: 300, guides: 300, courses: 30 };

export const JOURNEYS = ['guide', 'search', 'course', 'guideapi'] as const;
type Journey = (typeof JOURNEYS)[number];
const SEARCH_TERMS = ['battery', 'screen', 'replace', 'install', 'guide'];
/** The goal of issue 39 at 50 users on the local stack; the harness's own threshold is 2,000 ms. */
const GOAL_P95_MS = 250;

export interface Pool {
  token: string;
  guides: number[];
  courses: number[];
}

async function call(site: string, method: string, path: string, token: string | undefined, body?: unknown) {
  const response = await fetch(`${site}/api/2.0${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `api ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** The harness's seed: one login, a category, guides in it, courses of one guide stage each. */
export async function seedDozukiLoad(options: DozukiLoadOptions): Promise<Pool> {
  const { site } = options;
  const login = await call(site, 'POST', '/user/token', undefined, {
    email: options.email ?? 'admin@example.com',
    password: options.password ?? 'stepwise-admin',
  });
  if (login.status !== 201 && login.status !== 200) throw new Error(`login: ${login.status}`);
  const token = login.body.authToken as string;
  // The newer harness takes the session from a cookie whose name starts with `session`.
  const cookie = login.headers.getSetCookie().find((value) => /^session/i.test(value));
  if (!cookie?.includes(`=${token}`)) throw new Error('login: no session cookie carrying the token');
  const category = `LoadTest ${Date.now()}`;
  await call(site, 'POST', '/wikis', token, { namespace: 'CATEGORY', title: category, contents: 'Synthetic content.' });
  const guides: number[] = [];
  for (let index = 0; index < options.guides; index++) {
    const made = await call(site, 'POST', '/guides', token, {
      category,
      type: 'how-to',
      title: `LoadTest Guide ${index} replace the battery`,
    });
    if (made.status !== 201) throw new Error(`seed guide: ${made.status} ${JSON.stringify(made.body)}`);
    guides.push(made.body.guideid);
  }
  const courses: number[] = [];
  for (let index = 0; index < options.courses; index++) {
    const made = await call(site, 'POST', '/courses', token, {
      title: `LoadTest Course ${index} ${category}`,
      contents: 'Load test course.',
      stages: [{ docid: guides[index % guides.length], doctype: 'GUIDE' }],
    });
    if (made.status !== 201) throw new Error(`seed course: ${made.status} ${JSON.stringify(made.body)}`);
    // A course is a COURSE wiki: its id is `wikiid` (the harness reads `courseid || id`, which neither
    // Stepwise nor the documented Course object has, so there its course journeys become guide API ones).
    courses.push(made.body.wikiid);
  }
  return { token, guides, courses };
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** One journey as the harness makes it: the request, and whether its check passed. */
export async function journey(site: string, pool: Pool, kind: Journey): Promise<boolean> {
  const api = { authorization: `api ${pool.token}`, 'content-type': 'application/json' };
  let response: Response;
  switch (kind) {
    case 'guide':
      response = await fetch(`${site}/Guide/${pick(pool.guides)}/x`, {
        headers: { cookie: `PHPSESSID=${pool.token}` },
      });
      break;
    case 'search':
      response = await fetch(`${site}/api/2.0/search/${encodeURIComponent(pick(SEARCH_TERMS))}?limit=20`, {
        headers: api,
      });
      break;
    case 'course':
      response = await fetch(`${site}/api/2.0/courses/${pick(pool.courses)}`, { headers: api });
      break;
    case 'guideapi':
      response = await fetch(`${site}/api/2.0/guides/${pick(pool.guides)}`, { headers: api });
      break;
  }
  await response.arrayBuffer();
  // A guide page that ended on the login form is the failure issue 39 item 1 was about.
  if (kind === 'guide') return response.status < 400 && !new URL(response.url).pathname.startsWith('/login');
  return kind === 'course' ? response.status < 400 : response.status === 200;
}

/** The harness's pick: 50% guide page, 30% search, 15% course, 5% guide API. */
function nextJourney(): Journey {
  const r = Math.random();
  if (r < 0.5) return 'guide';
  if (r < 0.8) return 'search';
  if (r < 0.95) return 'course';
  return 'guideapi';
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export interface JourneyFigures {
  requests: number;
  failed: number;
  p50: number;
  p95: number;
  p99: number;
}

/** Ramps to `vus` users, holds, stops; the figures per journey. */
export async function runDozukiLoad(options: DozukiLoadOptions, pool: Pool): Promise<Record<Journey, JourneyFigures>> {
  const durations = Object.fromEntries(JOURNEYS.map((kind) => [kind, [] as number[]])) as Record<Journey, number[]>;
  const failed = Object.fromEntries(JOURNEYS.map((kind) => [kind, 0])) as Record<Journey, number>;
  const started = Date.now();
  const end = started + (options.rampSeconds + options.holdSeconds) * 1000;
  const user = async (index: number) => {
    await new Promise((resolve) => setTimeout(resolve, (index / options.vus) * options.rampSeconds * 1000));
    while (Date.now() < end) {
      const kind = nextJourney();
      const before = performance.now();
      let passed = false;
      try {
        passed = await journey(options.site, pool, kind);
      } catch {
        passed = false;
      }
      durations[kind].push(performance.now() - before);
      if (!passed) failed[kind]++;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 2000));
    }
  };
  await Promise.all(Array.from({ length: options.vus }, (_, index) => user(index)));
  return Object.fromEntries(
    JOURNEYS.map((kind) => {
      const sorted = durations[kind].sort((a, b) => a - b);
      return [
        kind,
        {
          requests: sorted.length,
          failed: failed[kind],
          p50: percentile(sorted, 50),
          p95: percentile(sorted, 95),
          p99: percentile(sorted, 99),
        },
      ];
    }),
  ) as Record<Journey, JourneyFigures>;
}

/** Seeds, runs and prints; true when every check passed and every journey met the 250 ms goal. */
export async function dozukiLoadBench(options: DozukiLoadOptions): Promise<boolean> {
  const seedStarted = Date.now();
  const pool = await seedDozukiLoad(options);
  const seedSeconds = (Date.now() - seedStarted) / 1000;
  const figures = await runDozukiLoad(options, pool);
  const { vus, rampSeconds, holdSeconds } = options;
  console.log(
    `\nDozuki's load-test workload: ${vus} users (ramp ${rampSeconds} s, hold ${holdSeconds} s), mix guide page 50 / ` +
      `search 30 / course 15 / guide API 5, 0-2 s pauses; seeded ${pool.guides.length} guides and ` +
      `${pool.courses.length} courses in ${seedSeconds.toFixed(1)} s`,
  );
  const fixed = (value: number) => Number(value.toFixed(1));
  console.table(
    Object.fromEntries(
      Object.entries(figures).map(([kind, f]) => [
        kind,
        {
          requests: f.requests,
          failed: f.failed,
          'p50 ms': fixed(f.p50),
          'p95 ms': fixed(f.p95),
          'p99 ms': fixed(f.p99),
        },
      ]),
    ),
  );
  const failedChecks = Object.values(figures).reduce((sum, f) => sum + f.failed, 0);
  const slow = Object.entries(figures).filter(([, f]) => f.p95 > GOAL_P95_MS);
  const passed = failedChecks === 0 && slow.length === 0;
  const slowNames = slow.map(([kind]) => kind).join(', ') || 'none';
  console.log(
    passed
      ? `Every check passed; every journey's p95 <= ${GOAL_P95_MS} ms.`
      : `NOT MET: ${failedChecks} failed checks; p95 over ${GOAL_P95_MS} ms: ${slowNames}.`,
  );
  return passed;
}

if (runsAlone(import.meta)) {
  const urlAt = process.argv.indexOf('--url');
  const size = process.argv.includes('--short') ? CI_SIZE : HARNESS_SIZE;
  let stop = async () => {};
  let site: string;
  if (urlAt > 0) site = process.argv[urlAt + 1]!.replace(/\/$/, '');
  else {
    const { startStackProcess } = await import('../support/local-stack-process.ts');
    const stack = await startStackProcess({ LOG_LEVEL: 'ERROR' });
    stop = stack.stop;
    site = stack.url.replace(/\/api\/2\.0$/, '');
  }
  try {
    const passed = await dozukiLoadBench({
      site,
      ...size,
      email: process.env.STEPWISE_ADMIN_EMAIL,
      password: process.env.STEPWISE_ADMIN_PASSWORD,
    });
    process.exitCode = passed ? 0 : 1;
  } finally {
    await stop();
  }
}
