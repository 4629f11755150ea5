/**
 * `npm run migrate -- --from <base URL ending in /api/2.0> (--token T | --email E [--password-stdin])
 *   --out site.jsonl [--resume | --force] [--allow-host H]... [--concurrency N] [--rate R] [--only users,...]`
 * Crawls a live API 2.0 site into a site file the import takes (docs/migration-content.md).
 * The password comes from STEPWISE_MIGRATE_PASSWORD or standard input, never the command line
 * (shell history, `ps`). Exit codes: 0 done, 1 failed (the checkpoint lets `--resume` continue),
 * 2 bad arguments.
 */
import { existsSync } from 'node:fs';
import { text } from 'node:stream/consumers';
import { parseArgs } from 'node:util';
import { formatBytes, startProgress } from '../progress.ts';
import { SourceError } from './crawl.ts';
import { formatReport } from './crawl-report.ts';
import { resourceCrawlers } from './resources/index.ts';
import { MigrationRun } from './runner.ts';
import { HttpSourceClient } from './source-client.ts';
import { signIn } from './sign-in.ts';

const USAGE =
  'Usage: npm run migrate -- --from <https://site/api/2.0>\n' +
  '         (--token <token> | --email <email> [--password-stdin])\n' +
  '         --out <site.jsonl> [--resume | --force] [--allow-host <host[:port]>]... [--concurrency 4] [--rate 10]\n' +
  '         [--only users,guides,...]\n' +
  '       With --email the password is read from STEPWISE_MIGRATE_PASSWORD,\n' +
  '       or from standard input with --password-stdin.';
const PASSWORD_ENV = 'STEPWISE_MIGRATE_PASSWORD';

function fail(message: string, code = 1): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

let values: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    options: {
      from: { type: 'string' },
      token: { type: 'string' },
      email: { type: 'string' },
      // Declared only to refuse it with a message saying how to pass a password instead.
      password: { type: 'string' },
      'password-stdin': { type: 'boolean', default: false },
      out: { type: 'string' },
      resume: { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      'allow-host': { type: 'string', multiple: true, default: [] },
      concurrency: { type: 'string', default: '4' },
      rate: { type: 'string', default: '10' },
      only: { type: 'string' },
    },
  }).values;
}
try {
  values = parse();
} catch (error) {
  fail(`${(error as Error).message}\n${USAGE}`, 2);
}

const concurrency = Number(values.concurrency);
const rate = Number(values.rate);
if (values.password !== undefined) {
  fail(
    `--password is refused: a password on the command line lands in shell history and ps. ` +
      `Set ${PASSWORD_ENV}, or pipe it in with --password-stdin.`,
    2,
  );
}
if (!values.from || !values.out) fail(USAGE, 2);
if (!values.token && !values.email) fail(`Give --token, or --email with a password.\n${USAGE}`, 2);
if (values.token && values.email) fail('Give --token or --email, not both', 2);
if (values.resume && values.force) fail('--resume continues the file and --force overwrites it: give one', 2);
if (!values.resume && !values.force && existsSync(values.out)) {
  fail(`${values.out} exists: add --force to overwrite it, or --resume to continue its crawl`, 2);
}
if (!Number.isInteger(concurrency) || concurrency < 1) fail('--concurrency is a whole number of at least 1', 2);
if (!(rate > 0)) fail('--rate is a number of requests per second above 0', 2);
const baseUrl = values.from.replace(/\/+$/, '');
if (!/^https?:\/\/.+\/api\/2\.0$/.test(baseUrl)) fail('--from is the source API root, ending in /api/2.0', 2);
const only = values.only
  ?.split(',')
  .map((name) => name.trim())
  .filter(Boolean);

const allowHosts = values['allow-host'];
if (allowHosts.some((host) => !/^[^\s/:]+(:\d+)?$|^\[[0-9a-f:.]+\](:\d+)?$/i.test(host))) {
  fail('--allow-host takes a host or host:port (e.g. cdn.example.com or 127.0.0.1:4569), once per host', 2);
}

/** The login's password: the environment, else the first line of standard input. */
async function readPassword(): Promise<string> {
  const fromEnv = process.env[PASSWORD_ENV];
  if (fromEnv) return fromEnv;
  if (!values['password-stdin']) {
    fail(`--email needs a password: set ${PASSWORD_ENV}, or pipe it in with --password-stdin`, 2);
  }
  const password = (await text(process.stdin)).split(/\r?\n/)[0] ?? '';
  if (!password) fail('--password-stdin read no password from standard input', 2);
  return password;
}
const credentials = values.token ? { token: values.token } : { email: values.email!, password: await readPassword() };

const client = new HttpSourceClient({ baseUrl, token: values.token, concurrency, ratePerSecond: rate, allowHosts });
try {
  await signIn(client, credentials);
} catch (error) {
  fail(`Sign-in to ${baseUrl} failed: ${(error as Error).message}`);
}

const run = new MigrationRun({
  api: client,
  baseUrl,
  crawlers: resourceCrawlers,
  only,
  out: values.out,
  resume: values.resume,
});
const progress = startProgress({
  describe: () =>
    `migrate ${run.progress.crawler || '...'} | requests ${client.stats.requests} ` +
    `(retries ${client.stats.retries}) | records ${run.progress.records} | ${formatBytes(run.progress.bytes)}`,
});
try {
  const report = await run.run();
  progress.stop();
  process.stdout.write(`${formatReport(report)}\nReport: ${values.out}.report.json\n`);
} catch (error) {
  progress.stop();
  const reason = error instanceof SourceError ? `${error.message}` : ((error as Error).stack ?? String(error));
  fail(`Migration stopped: ${reason}\nWhat was finished is kept: run the same command with --resume to continue.`);
}
