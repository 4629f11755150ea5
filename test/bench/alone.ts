/**
 * What a bench section needs to run on its own (`npx tsx test/bench/<section>.ts`) as well as
 * from `npm run bench` (run.ts): whether it is the script node was started with, a stack of its
 * own for the run, and the first admin's token.
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
