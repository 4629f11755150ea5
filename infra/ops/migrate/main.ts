/**
 * `npm run migrate -- --from <base URL ending in /api/2.0> (--token T | --email E --password P)
 *   --out site.jsonl [--resume] [--concurrency N] [--rate R] [--only users,guides,...]`
 * Crawls a live API 2.0 site into a site file the import takes (docs/operations.md, "Migration").
 * Exit codes: 0 done, 1 failed (the checkpoint lets `--resume` continue), 2 bad arguments.
 */
import { parseArgs } from 'node:util';
import { formatBytes, startProgress } from '../progress.ts';
import { SourceError } from './crawl.ts';
import { formatReport } from './crawl-report.ts';
import { resourceCrawlers } from './resources/index.ts';
import { MigrationRun } from './runner.ts';
import { HttpSourceClient } from './source-client.ts';
import { signIn } from './sign-in.ts';

const USAGE =
  'Usage: npm run migrate -- --from <https://site/api/2.0> (--token <token> | --email <email> --password <pw>)\n' +
  '         --out <site.jsonl> [--resume] [--concurrency 4] [--rate 10] [--only users,guides,...]';

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
      password: { type: 'string' },
      out: { type: 'string' },
      resume: { type: 'boolean', default: false },
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
if (!values.from || !values.out) fail(USAGE, 2);
if (!values.token && !(values.email && values.password)) fail(`Give --token, or --email and --password.\n${USAGE}`, 2);
if (!Number.isInteger(concurrency) || concurrency < 1) fail('--concurrency is a whole number of at least 1', 2);
if (!(rate > 0)) fail('--rate is a number of requests per second above 0', 2);
const baseUrl = values.from.replace(/\/+$/, '');
if (!/^https?:\/\/.+\/api\/2\.0$/.test(baseUrl)) fail('--from is the source API root, ending in /api/2.0', 2);
const only = values.only
  ?.split(',')
  .map((name) => name.trim())
  .filter(Boolean);

const client = new HttpSourceClient({ baseUrl, token: values.token, concurrency, ratePerSecond: rate });
try {
  await signIn(client, values.token ? { token: values.token } : { email: values.email!, password: values.password! });
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
