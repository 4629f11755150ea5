/**
 * `npm run export -- --from <Stepwise URL> --token <Admin token> --out site.jsonl [--poll 2]`
 * Runs an export job on the site and downloads the site file (docs/operations.md, "Backup").
 * Exit codes: 0 done, 1 failed (the job's status is printed), 2 bad arguments.
 */
import { parseArgs } from 'node:util';
import { bar, formatBytes, startProgress } from '../progress.ts';
import { checkOutputFile, checkReachable, siteUrlArgument, UsageError } from './command-checks.ts';
import { JobFailedError, runExport, type JobProgress } from './site-jobs.ts';

const USAGE = `Usage: npm run export -- --from <https://stepwise.example.com> --token <Admin token> --out <site.jsonl>
         [--poll <seconds, default 2>]
Runs an export job on the site and downloads the site file. Exit codes: 0 done, 1 failed, 2 bad arguments.`;

function fail(message: string, code = 1): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

let values: { from?: string; token?: string; out?: string; poll?: string; help?: boolean };
try {
  values = parseArgs({
    options: {
      from: { type: 'string' },
      token: { type: 'string' },
      out: { type: 'string' },
      poll: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values;
} catch (error) {
  fail(`${(error as Error).message}\n${USAGE}`, 2);
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (!values.from || !values.token || !values.out) fail(USAGE, 2);
const pollSeconds = Number(values.poll ?? '2');
if (!(pollSeconds > 0)) fail('--poll is a number of seconds above 0', 2);
let apiRoot = '';
try {
  apiRoot = siteUrlArgument('--from', values.from);
  checkOutputFile('--out', values.out);
} catch (error) {
  if (error instanceof UsageError) fail(error.message, 2);
  throw error;
}
await checkReachable(apiRoot).catch((error: Error) => fail(error.message));

const state: JobProgress = { phase: 'starting', percent: 0, bytes: 0, totalBytes: 0 };
const progress = startProgress({
  describe: () =>
    state.phase === 'downloading'
      ? `export downloading ${bar(state.totalBytes ? (state.bytes / state.totalBytes) * 100 : 100)} ` +
        `${formatBytes(state.bytes)} of ${formatBytes(state.totalBytes)}`
      : `export ${state.phase} ${bar(state.percent)}`,
});
try {
  const result = await runExport(
    { baseUrl: apiRoot, token: values.token, pollMs: pollSeconds * 1000 },
    values.out,
    state,
  );
  progress.stop();
  const counts = Object.entries(result.counts).map(([entity, count]) => `  ${entity}: ${count}`);
  process.stdout.write(
    `Export ${result.exportid}: ${formatBytes(result.bytes)} in ${result.parts} part(s) → ${values.out}\n` +
      `${counts.join('\n')}\n`,
  );
} catch (error) {
  progress.stop();
  const status = error instanceof JobFailedError ? `\n${JSON.stringify(error.status, null, 2)}` : '';
  fail(`${(error as Error).message}${status}`);
}
