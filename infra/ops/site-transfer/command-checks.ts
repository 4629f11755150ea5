/**
 * What `npm run export` and `npm run import` check before they start a job on the site, so an
 * operator's mistake is one line naming what to fix (exit 2), not a stack trace or a job started
 * for nothing: the site's URL, the output directory, and that the site answers at all.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { apiRootOf } from './site-jobs.ts';

/** A bad argument: the commands print it with their usage and exit 2. */
export class UsageError extends Error {}

/** The site's API root from `--from`/`--to`, or a UsageError naming the flag. */
export function siteUrlArgument(flag: string, value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // refused below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw new UsageError(`${flag} must be the site's http(s) URL, e.g. https://stepwise.example.com (got "${value}")`);
  }
  return apiRootOf(url.href);
}

/** Refuses an `--out` whose directory is missing or not writable, before any job starts on the site. */
export function checkOutputFile(flag: string, path: string): void {
  const directory = dirname(resolve(path));
  let isDirectory = false;
  try {
    isDirectory = statSync(directory).isDirectory();
  } catch {
    // refused below
  }
  if (!isDirectory) throw new UsageError(`${flag}: the directory ${directory} does not exist; create it first`);
  try {
    accessSync(directory, constants.W_OK);
  } catch {
    throw new UsageError(`${flag}: the directory ${directory} is not writable`);
  }
}

/**
 * One request, no retries, to the site's health route: a host that does not answer is named
 * at once (the job client would retry it for a while with back-off). Any HTTP answer will do.
 */
export async function checkReachable(apiRoot: string, timeoutMs = 15_000): Promise<void> {
  try {
    const answer = await fetch(`${apiRoot}/health`, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await answer.body?.cancel();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer in ${timeoutMs / 1000} s`
        : (cause?.code ?? cause?.message ?? (error as Error).message);
    throw new Error(`Cannot reach ${apiRoot} (${reason}): check the URL and the network`);
  }
}
