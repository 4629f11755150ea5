/**
 * `npm run notices:queue-backfill -- [--catch-up-days <n>] [--table <name>] [--region <region>]`:
 * queues the notices of acknowledgements and levels written before the notice queue
 * (notice-queue.ts; docs/notices.md). Only notices still of use (their instant or date to come),
 * or within the last `--catch-up-days` (default 0). Safe to run again.
 */
import { parseStoreArgs } from '../store-args.ts';

const USAGE =
  'Usage: npm run notices:queue-backfill -- [--catch-up-days <days>] [--table <table name>] [--region <region>]';
const args = parseStoreArgs<{ 'catch-up-days'?: string }>(USAGE, { 'catch-up-days': { type: 'string' } });
const days = Number(args['catch-up-days'] ?? 0);
if (!Number.isInteger(days) || days < 0 || days > 3650) {
  console.error(`--catch-up-days is a whole number of days, 0-3650\n${USAGE}`);
  process.exit(2);
}

const { backfillNoticeQueue } = await import('./notice-queue.ts');
const now = Math.floor(Date.now() / 1000);
const totals = await backfillNoticeQueue(now, days * 86400, (sofar) =>
  console.error(`${sofar.acknowledgements} acknowledgements and ${sofar.levels} levels read, ${sofar.queued} queued`),
).catch((error: Error) => {
  console.error(`The backfill stopped: ${error.name}: ${error.message}. Run it again (it is idempotent).`);
  process.exit(1);
});
console.log(
  `Done: ${totals.queued} notices queued for ${totals.acknowledgements} pending acknowledgements and ` +
    `${totals.levels} levels; ${totals.skipped} past their use left out.`,
);
