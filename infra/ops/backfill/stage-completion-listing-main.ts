/**
 * `npm run training:history-backfill -- [--table <name>] [--region <region>]`: lists the stage
 * completion events recorded before decision 243 in the external-courses history
 * (stage-completion-listing.ts). Safe to run again.
 */
import { parseStoreArgs } from '../store-args.ts';

parseStoreArgs('Usage: npm run training:history-backfill -- [--table <table name>] [--region <region>]');

const { backfillStageCompletionListing } = await import('./stage-completion-listing.ts');
const totals = await backfillStageCompletionListing((sofar) =>
  console.error(`${sofar.users} accounts read, ${sofar.listed} events listed`),
).catch((error: Error) => {
  console.error(`The backfill stopped: ${error.name}: ${error.message}. Run it again (it is idempotent).`);
  process.exit(1);
});
console.log(`Done: ${totals.listed} completion events of ${totals.users} accounts listed.`);
