/**
 * What a bench section needs to run on its own (`npx tsx test/bench/<section>.ts`) as well as
 * from `npm run bench` (run.ts): whether it is the script node was started with, a stack of its
 * own for the run, and the first admin's token; and what sections share: calls to the API, a user to
 * read, load on one URL, medians.
 */
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { type RunningStack, startStackProcess } from '../support/local-stack-process.ts';

/** True when the module of `meta` is the script node runs, not one run.ts imports. */
export function runsAlone(meta: ImportMeta): boolean {
  return meta.url === pathToFileURL(process.argv[1] ?? '').href;
}

/** Runs `section` on a stack process started for it (LOG_LEVEL ERROR and `environment`), stopped after. */
export async function onStackOfItsOwn(
  section: (stack: RunningStack) => Promise<void>,
  environment: Record<string, string> = {},
): Promise<void> {
  const stack = await startStackProcess({ LOG_LEVEL: 'ERROR', ...environment });
  try {
    await section(stack);
  } finally {
    await stack.stop();
  }
}

/** The first admin's API token (the stack's default credentials). */
export async function adminToken(stack: RunningStack): Promise<string> {
  const response = await fetch(`${stack.url}/user/token`, {
    method: 'POST',
    body: JSON.stringify({ email: 'admin@example.com', password: 'stepwise-admin' }),
  });
  if (response.status !== 201) throw new Error(`bench: the admin's login answered ${response.status}`);
  return ((await response.json()) as { authToken: string }).authToken;
}

/** The middle value (the upper one of an even count). */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The middle value; of an even count, the mean of the two middle ones (a median of rounds' ratios). */
export function meanMedian(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A user other than the admin, created for a section to read (`<label>.<time>@example.com`); its userid. */
export async function createBenchUser(stack: RunningStack, token: string, label: string, username: string) {
  const response = await fetch(`${stack.url}/users`, {
    method: 'POST',
    headers: { authorization: `api ${token}` },
    body: JSON.stringify({ email: `${label}.${Date.now()}@example.com`, username, password: 'Bench-pass-123' }),
  });
  return ((await response.json()) as { userid: number }).userid;
}

/** GET `url` with the token from `connections` callers for `seconds` (autocannon): rates, latencies (ms), failures. */
export async function getLoad(url: string, token: string, connections: number, seconds: number) {
  const result = await autocannon({ url, connections, headers: { authorization: `api ${token}` }, duration: seconds });
  return {
    rps: result.requests.average,
    requests: result.requests.total,
    mean: result.latency.average,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

/** A page's latency under 4 callers for `seconds`, after 2 s of the same load to warm it. */
export async function pageLatency(url: string, token: string, seconds: number) {
  await getLoad(url, token, 4, 2);
  return getLoad(url, token, 4, seconds);
}

/** A section's API call: JSON in and out, with the token if any; a status of 300 or more throws, naming the section. */
export function apiCaller(section: string) {
  return async (stack: RunningStack, token: string | null, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${stack.url}${path}`, {
      method,
      headers: token ? { authorization: `api ${token}` } : {},
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300)
      throw new Error(`${section} bench: ${method} ${path} ${response.status} ${text.slice(0, 300)}`);
    return text ? (JSON.parse(text) as any) : undefined;
  };
}
