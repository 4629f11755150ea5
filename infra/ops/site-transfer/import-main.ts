/**
 * `npm run import -- --to <Stepwise URL> --token <Admin token> [--mode empty|merge] [--dry-run]
 *   [--mail-password-resets] [--allow-admin-grants] [--poll 2] site.jsonl`
 * Sealed webhook secrets open with the passphrase in STEPWISE_SECRETS_PASSPHRASE (never an argument: ps shows those).
 * Uploads a site file and runs the import job (docs/operations.md, "Restore").
 * Exit codes: 0 imported (or validated, with --dry-run), 1 failed (the job's report is printed),
 * 2 bad arguments or not a site file.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { headerRecordSchema } from '../../../shared/site-archive/records.ts';
import { bar, formatBytes, startProgress } from '../progress.ts';
import { checkReachable, siteUrlArgument, UsageError } from './command-checks.ts';
import { JobFailedError, runImport, type JobProgress } from './site-jobs.ts';

const USAGE =
  'Usage: npm run import -- --to <https://stepwise.example.com> --token <Admin token> [--mode empty|merge]\n' +
  '         [--dry-run] [--mail-password-resets] [--allow-admin-grants] <site.jsonl>';

function fail(message: string, code = 1): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    allowPositionals: true,
    options: {
      to: { type: 'string' },
      token: { type: 'string' },
      mode: { type: 'string', default: 'empty' },
      'dry-run': { type: 'boolean', default: false },
      'mail-password-resets': { type: 'boolean', default: false },
      'allow-admin-grants': { type: 'boolean', default: false },
      poll: { type: 'string', default: '2' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}
try {
  parsed = parse();
} catch (error) {
  fail(`${(error as Error).message}\n${USAGE}`, 2);
}
const { values, positionals } = parsed;
if (values.help) {
  process.stdout.write(
    `${USAGE}\nUploads a site file and runs the import job. Exit codes: 0 done, 1 failed, 2 bad arguments.\n`,
  );
  process.exit(0);
}
const file = positionals[0];
if (!values.to || !values.token || !file || positionals.length > 1) fail(USAGE, 2);
if (values.mode !== 'empty' && values.mode !== 'merge') fail('--mode is empty or merge', 2);
const pollSeconds = Number(values.poll);
if (!(pollSeconds > 0)) fail('--poll is a number of seconds above 0', 2);
let apiRoot = '';
try {
  apiRoot = siteUrlArgument('--to', values.to);
} catch (error) {
  if (error instanceof UsageError) fail(error.message, 2);
  throw error;
}
await checkSiteFile(file);
await checkReachable(apiRoot).catch((error: Error) => fail(error.message));

const state: JobProgress = { phase: 'starting', percent: 0, bytes: 0, totalBytes: 0 };
const progress = startProgress({
  describe: () =>
    state.phase === 'uploading'
      ? `import uploading ${bar(state.percent)} ${formatBytes(state.bytes)} of ${formatBytes(state.totalBytes)}`
      : `import ${state.phase} ${bar(state.percent)}`,
});
try {
  const result = await runImport(
    { baseUrl: apiRoot, token: values.token, pollMs: pollSeconds * 1000 },
    file,
    {
      mode: values.mode,
      dryRun: values['dry-run'],
      mailPasswordResets: values['mail-password-resets'],
      allowAdminGrants: values['allow-admin-grants'],
      secretsPassphrase: process.env.STEPWISE_SECRETS_PASSPHRASE,
    },
    state,
  );
  progress.stop();
  const verb = result.status === 'validated' ? 'validated (dry run, nothing written)' : 'complete';
  process.stdout.write(`Import ${result.importid} ${verb}\n${JSON.stringify(result.report, null, 2)}\n`);
} catch (error) {
  progress.stop();
  const status = error instanceof JobFailedError ? `\n${JSON.stringify(error.status, null, 2)}` : '';
  fail(`${(error as Error).message}${status}`);
}

/** A quick look at the first line before anything is uploaded: a site file starts with its header. */
async function checkSiteFile(path: string): Promise<void> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      let header: unknown;
      try {
        header = JSON.parse(line);
      } catch {
        // reported below
      }
      if (!headerRecordSchema.safeParse(header).success) fail(`${path} is not a site file (no header record)`, 2);
      return;
    }
    fail(`${path} is empty`, 2);
  } catch (error) {
    fail(`${path} cannot be read: ${(error as Error).message}`, 2);
  } finally {
    lines.close();
  }
}
