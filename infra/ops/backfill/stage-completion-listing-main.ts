/**
 * `npm run training:history-backfill -- [--table <name>] [--region <region>]`: lists the stage
 * completion events recorded before decision 243 in the external-courses history
 * (stage-completion-listing.ts). Safe to run again.
 */
import { parseArgs } from 'node:util';

const USAGE = 'Usage: npm run training:history-backfill -- [--table <table name>] [--region <region>]';
let values: { table?: string; region?: string };
try {
  values = parseArgs({ options: { table: { type: 'string' }, region: { type: 'string' } } }).values;
} catch (error) {
  console.error(`${(error as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (values.table) process.env.TABLE_NAME = values.table;
if (values.region) process.env.AWS_REGION = values.region;

const { backfillStageCompletionListing } = await import('./stage-completion-listing.ts');
const totals = await backfillStageCompletionListing((sofar) =>
  console.error(`${sofar.users} accounts read, ${sofar.listed} events listed`),
).catch((error: Error) => {
  console.error(`The backfill stopped: ${error.name}: ${error.message}. Run it again (it is idempotent).`);
  process.exit(1);
});
console.log(`Done: ${totals.listed} completion events of ${totals.users} accounts listed.`);
