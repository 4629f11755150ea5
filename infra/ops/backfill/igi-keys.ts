/**
 * Copies the sizes of images processed before decision 197 to the keys `/igi/` serves: they
 * were stored as `derived/<itemid>/<guid>.<size>` (a video's poster card as `.poster`), and the
 * Image's `original` (`igi/<guid>`) did not exist. For each item the bucket still holds under
 * `derived/`, that is still a media item with that guid:
 *   derived/<itemid>/<guid>.<size>    -> igi/<guid>.<size>
 *   derived/<itemid>/<guid>.poster    -> igi/<guid>          (a video's poster: its Image original)
 *   originals/<itemid>/<file>         -> igi/<guid>          (an image: a copy of the upload)
 * A key that already exists is left alone (idempotent: a second run copies nothing). The
 * listing is in key order and each page is done before the next is read, so `after` (the
 * last key a run reported) resumes an interrupted run. Copies run `concurrency` at a time.
 * `derived/` is left in place: delete it once the new URLs answer (docs/operations.md).
 */
import { CopyObjectCommand, HeadObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { getMediaItem } from '../../../shared/db/entities/media-item.ts';
import { POSTER_SIZE } from '../../../shared/domain/media.ts';
import { imageObjectKey } from '../../../shared/storage/media-objects.ts';

const LEGACY_PREFIX = 'derived/';
const LEGACY_KEY = /^derived\/(\d{1,15})\/([A-Za-z0-9_-]{1,64})\.([a-z0-9]{1,16})$/;

export interface BackfillOptions {
  s3: S3Client;
  bucket: string;
  /** Copies in flight at once. */
  concurrency: number;
  /** Resume after this key (what the last run reported). */
  after?: string;
  /** Called after each listing page with the totals so far and the last key done. */
  onPage?: (totals: BackfillTotals, lastKey: string) => void;
}

export interface BackfillTotals {
  listed: number;
  copied: number;
  present: number;
  /** Objects of items that are gone, or whose guid differs: left alone. */
  orphaned: number;
}

/** One copy to make: source key -> target key. */
interface Copy {
  from: string;
  to: string;
}

async function exists(s3: S3Client, bucket: string, key: string): Promise<boolean> {
  try {
    await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'NotFound' || name === 'NoSuchKey') return false;
    throw error;
  }
}

const copySource = (bucket: string, key: string) => `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;

/** The copies one page of legacy keys asks for, checked against the items they belong to. */
async function copiesOf(keys: string[], totals: BackfillTotals): Promise<Copy[]> {
  const parsed = keys.map((key) => ({ key, match: LEGACY_KEY.exec(key) }));
  const itemids = [...new Set(parsed.flatMap(({ match }) => (match ? [Number(match[1])] : [])))];
  const items = new Map(
    (await Promise.all(itemids.map((itemid) => getMediaItem(itemid)))).flatMap((item) =>
      item ? [[item.itemid, item] as const] : [],
    ),
  );
  const copies: Copy[] = [];
  const originalsDone = new Set<number>();
  for (const { key, match } of parsed) {
    const item = match ? items.get(Number(match[1])) : undefined;
    if (!match || !item || item.guid !== match[2]) {
      totals.orphaned += 1;
      continue;
    }
    const size = match[3]!;
    copies.push({ from: key, to: size === POSTER_SIZE ? imageObjectKey(item.guid) : imageObjectKey(item.guid, size) });
    if (item.type === 'GuideImage' && !originalsDone.has(item.itemid)) {
      originalsDone.add(item.itemid);
      copies.push({ from: item.original_key, to: imageObjectKey(item.guid) });
    }
  }
  return copies;
}

async function runLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export async function backfillIgiKeys(options: BackfillOptions): Promise<BackfillTotals> {
  const { s3, bucket } = options;
  const totals: BackfillTotals = { listed: 0, copied: 0, present: 0, orphaned: 0 };
  let token: string | undefined;
  let startAfter = options.after;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: LEGACY_PREFIX,
        ContinuationToken: token,
        StartAfter: token ? undefined : startAfter,
      }),
    );
    const keys = (page.Contents ?? []).map((object) => object.Key!);
    totals.listed += keys.length;
    const copies = await copiesOf(keys, totals);
    await runLimited(copies, options.concurrency, async (copy) => {
      if (await exists(s3, bucket, copy.to)) {
        totals.present += 1;
        return;
      }
      // A deleted item's objects may go while this runs: its copy is skipped, not an error.
      if (!(await exists(s3, bucket, copy.from))) {
        totals.orphaned += 1;
        return;
      }
      await s3.send(new CopyObjectCommand({ Bucket: bucket, Key: copy.to, CopySource: copySource(bucket, copy.from) }));
      totals.copied += 1;
    });
    if (keys.length > 0) options.onPage?.(totals, keys.at(-1)!);
    startAfter = undefined;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return totals;
}
