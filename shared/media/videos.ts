/**
 * A stored video's size and length, read from its MP4/QuickTime boxes with a few ranged GETs
 * (the header, then each top-level box header until `moov`, then `moov` itself): never the whole
 * file. Formats without those boxes (WebM, Ogg) give nulls.
 */
import { readBoxHeader, videoFactsFromMoov, type VideoFacts } from '../domain/video-probe.ts';
import { getObjectRange } from '../storage/objects.ts';

const HEAD_BYTES = 64 * 1024;
/** A `moov` larger than this is not read (it indexes hours of video; the facts stay null). */
const MAX_MOOV_BYTES = 16 * 1024 * 1024;
const MAX_TOP_LEVEL_BOXES = 64;
const UNKNOWN: VideoFacts = { width: null, height: null, durationMs: null };

export async function readVideoFacts(bucket: string, key: string, fileSize: number): Promise<VideoFacts> {
  const head = await getObjectRange(bucket, key, 0, HEAD_BYTES - 1);
  let offset = 0;
  for (let count = 0; count < MAX_TOP_LEVEL_BOXES && offset + 8 <= fileSize; count++) {
    const bytes = offset + 16 <= head.length ? head : await getObjectRange(bucket, key, offset, offset + 15);
    const box = readBoxHeader(bytes, bytes === head ? offset : 0, bytes === head ? 0 : offset, fileSize);
    if (!box) return UNKNOWN;
    if (count === 0 && box.type !== 'ftyp' && box.type !== 'moov' && box.type !== 'wide' && box.type !== 'mdat')
      return UNKNOWN;
    if (box.type === 'moov') {
      if (box.size > MAX_MOOV_BYTES) return UNKNOWN;
      const moov =
        box.start + box.size <= head.length
          ? head.subarray(box.start, box.start + box.size)
          : await getObjectRange(bucket, key, box.start, box.start + box.size - 1);
      return videoFactsFromMoov(moov);
    }
    offset = box.start + box.size;
  }
  return UNKNOWN;
}
