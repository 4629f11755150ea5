/**
 * `npm run test:times`: after a full `npm test`, writes what each stack-lane file took
 * (.tmp/test-times/<lane>.json, test/support/file-times-reporter.ts) to test/support/file-durations.json, which the
 * timed sequencer splits the lanes by (decision 345). Files the run did not report keep their old time;
 * files that no longer exist are dropped.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as z from 'zod/mini';
import { RECORDED_DURATIONS_FILE } from './timed-sequencer.ts';

const REPORTS = new URL('../../.tmp/test-times/', import.meta.url);
const ROOT = new URL('../../', import.meta.url).pathname;

const reportSchema = z.record(z.string(), z.number());

const recorded = JSON.parse(readFileSync(RECORDED_DURATIONS_FILE, 'utf8')) as Record<string, number>;
const reports = existsSync(REPORTS) ? readdirSync(REPORTS).filter((name) => name.endsWith('.json')) : [];
if (!reports.length) {
  console.error('No report in .tmp/test-times: run `npm test` (all lanes) first.');
  process.exit(1);
}
let updated = 0;
for (const name of reports) {
  const times = reportSchema.parse(JSON.parse(readFileSync(new URL(name, REPORTS), 'utf8')));
  for (const [path, ms] of Object.entries(times)) {
    recorded[path] = ms;
    updated++;
  }
}
const kept = Object.fromEntries(
  Object.entries(recorded)
    .filter(([path]) => existsSync(new URL(path, `file://${ROOT}`)))
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(RECORDED_DURATIONS_FILE, `${JSON.stringify(kept, null, 2)}\n`);
console.log(`${updated} file times from ${reports.length} lane report(s); ${Object.keys(kept).length} files recorded.`);
