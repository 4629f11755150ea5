/**
 * What a bench section needs to run on its own (`npx tsx test/bench/<section>.ts`) as well as
 * from `npm run bench` (run.ts): whether it is the script node was started with, a stack of its
 * own for the run, and the first admin's token; and what sections share: calls to the API, a median.
 */
import { pathToFileURL } from 'node:url';
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
  if (response.status !== 200) throw new Error(`bench: the admin's login answered ${response.status}`);
  return ((await response.json()) as { authToken: string }).authToken;
}

/** The middle value (the upper one of an even count). */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

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
