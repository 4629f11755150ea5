/**
 * Media processing: runs on S3 "object created" events for originals in the media bucket (S3
 * event notification -> Lambda on AWS; the S3 emulator's callback locally, with the same event
 * shape: events/s3/media-original-created.json). Images get every size of the Image object,
 * videos a poster card in those sizes; other types are ready once their original is stored.
 */
import type { S3Event } from 'aws-lambda';
import { MEDIA_CONSTRAINTS, POSTER_SIZE } from '../../shared/domain/media.ts';
import { nowSeconds } from '../../shared/db/keys.ts';
import {
  finishProcessing,
  getMediaItem,
  markOriginalStored,
  type MediaItemRecord,
} from '../../shared/db/entities/media-item.ts';
import {
  ImageRefusedError,
  renderImageSizes,
  renderVideoPoster,
  type RenderedImage,
} from '../../shared/media/images.ts';
import {
  derivedKey,
  deleteMediaObjects,
  itemIdOfOriginalKey,
  mediaBucket,
} from '../../shared/storage/media-objects.ts';
import { getObjectBytes, ObjectTooLargeError, putObject } from '../../shared/storage/objects.ts';
import { readVideoFacts } from '../../shared/media/videos.ts';
import { log } from '../../shared/observability/logger.ts';

/** Keys in S3 event records are URL-encoded, with `+` for spaces. */
export function decodeEventKey(key: string): string {
  return decodeURIComponent(key.replace(/\+/g, ' '));
}

export async function handler(event: S3Event): Promise<void> {
  for (const record of event.Records ?? []) {
    if (!record.eventName?.startsWith('ObjectCreated:')) continue;
    await processOriginal(record.s3.bucket.name, decodeEventKey(record.s3.object.key), record.s3.object.size ?? 0);
  }
}

async function processOriginal(bucket: string, key: string, size: number): Promise<void> {
  const itemid = itemIdOfOriginalKey(key);
  if (bucket !== mediaBucket() || itemid === undefined) {
    log().warn('media processor: not an original of the media bucket', { bucket, key });
    return;
  }
  const item = await getMediaItem(itemid);
  if (!item || item.original_key !== key) {
    // The item was deleted before its upload finished: nothing may keep the object alive.
    if (!item) await deleteMediaObjects(itemid);
    return;
  }
  // Already made from this original: a re-delivered event, or a site import restoring the item
  // and then its objects (its sizes come from the file too).
  if (item.status === 'ready' && item.size === size) return;
  await markOriginalStored(itemid, key, size, nowSeconds());
  const outcome = await process(item, size);
  const recorded = await finishProcessing(itemid, key, { ...outcome, size, now: nowSeconds() });
  if (!recorded) await deleteMediaObjects(itemid); // deleted while we worked
}

type Outcome = {
  status: 'ready' | 'failed';
  sizes: string[];
  width: number | null;
  height: number | null;
  durationMs?: number | null;
  failure: string | null;
};

async function process(item: MediaItemRecord, size: number): Promise<Outcome> {
  const constraint = MEDIA_CONSTRAINTS.find((c) => c.type === item.type);
  if (constraint && size > constraint.max_bytes) {
    return failed(`The file is ${size} bytes; ${item.type} items may have at most ${constraint.max_bytes}`);
  }
  if (item.type === 'GuideVideoObject') {
    // Videos are kept as uploaded; their Image (the poster) is a generated card in every size.
    const [facts, poster] = await Promise.all([
      readVideoFacts(mediaBucket(), item.original_key, size),
      renderVideoPoster(),
    ]);
    await putObject(mediaBucket(), derivedKey(item.itemid, item.guid, POSTER_SIZE), poster.original, 'image/png');
    const sizes = await storeSizes(item, poster.rendered);
    return {
      status: 'ready',
      sizes: [...sizes, POSTER_SIZE],
      width: facts.width,
      height: facts.height,
      durationMs: facts.durationMs,
      failure: null,
    };
  }
  if (item.type !== 'GuideImage') return { status: 'ready', sizes: [], width: null, height: null, failure: null };

  try {
    const original = await getObjectBytes(mediaBucket(), item.original_key, constraint!.max_bytes);
    const rendered = await renderImageSizes(original);
    const sizes = await storeSizes(item, rendered);
    return { status: 'ready', sizes, width: rendered.width, height: rendered.height, failure: null };
  } catch (error) {
    // Refused for what it is (format, pixels, deadline: decision 162): the item says why.
    if (error instanceof ImageRefusedError || error instanceof ObjectTooLargeError) return failed(error.message);
    // S3 or DynamoDB trouble, or every image slot busy (ImageBusyError): the invocation fails and
    // S3's asynchronous invocation retries it.
    throw error;
  }
}

async function storeSizes(item: MediaItemRecord, rendered: RenderedImage): Promise<string[]> {
  await Promise.all(
    rendered.sizes.map((rendition) =>
      putObject(
        mediaBucket(),
        derivedKey(item.itemid, item.guid, rendition.name),
        rendition.body,
        rendition.contentType,
      ),
    ),
  );
  return rendered.sizes.map((rendition) => rendition.name);
}

function failed(reason: string): Outcome {
  return { status: 'failed', sizes: [], width: null, height: null, failure: reason };
}
