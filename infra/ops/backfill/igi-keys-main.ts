/**
 * `npm run media:igi-backfill -- [--after <key>] [--concurrency <n>] [--bucket <name>] [--table <name>]
 * [--region <region>]`: copies the sizes of images processed before decision 197 to their `/igi/`
 * keys (igi-keys.ts). Safe to run again; `--after` resumes from the last key a run printed.
 * Uses the caller's AWS credentials; MEDIA_BUCKET and TABLE_NAME as the functions read them.
 */
import { parseStoreArgs } from '../store-args.ts';

const USAGE =
  'Usage: npm run media:igi-backfill -- [--after <key>] [--concurrency <1-64>] [--bucket <media bucket>] ' +
  '[--table <table name>] [--region <region>]';
const values = parseStoreArgs<{ after?: string; concurrency?: string; bucket?: string }>(USAGE, {
  after: { type: 'string' },
  concurrency: { type: 'string' },
  bucket: { type: 'string' },
});
const concurrency = Number(values.concurrency ?? 8);
if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
  console.error(`--concurrency must be a whole number from 1 to 64\n${USAGE}`);
  process.exit(2);
}
if (values.bucket) process.env.MEDIA_BUCKET = values.bucket;

const { backfillIgiKeys } = await import('./igi-keys.ts');
const { s3Client } = await import('../../../shared/storage/s3-client.ts');
const { mediaBucket } = await import('../../../shared/storage/media-objects.ts');
const totals = await backfillIgiKeys({
  s3: s3Client(),
  bucket: mediaBucket(),
  concurrency,
  after: values.after,
  onPage: (sofar, lastKey) =>
    console.error(
      `listed ${sofar.listed}, copied ${sofar.copied}, already there ${sofar.present}; resume: --after ${lastKey}`,
    ),
}).catch((error: Error) => {
  console.error(`The backfill stopped: ${error.name}: ${error.message}. Run it again with the last --after printed.`);
  process.exit(1);
});
console.log(
  `Done: ${totals.listed} legacy objects, ${totals.copied} copied, ${totals.present} already in place, ` +
    `${totals.orphaned} of deleted items left alone.`,
);
