/**
 * The bytes `GET /igi/{guid}/{filename}` answers: a video's or a document's file at its stable
 * path of the site (decision 312), as images are at `/igi/<guid>.<size>` (decision 197). The
 * guid is the capability: whoever may read the guide or document that shows the item was given
 * it. The file is served from a public copy of the original under `igi/<guid>/`, the key the
 * path names, so that on AWS CloudFront serves it from the bucket (ranges included) and this
 * route only answers what the bucket did not hold yet: it makes the copy (S3 copies it, nothing
 * passes through the function) and answers from it. Ranges, If-Range and If-None-Match are
 * answered as S3 would.
 */
import { NotFoundError } from '../../shared/domain/errors.ts';
import { getMediaItem, type MediaItemRecord, mediaItemIdByGuid } from '../../shared/db/entities/media-item.ts';
import {
  fileObjectKey,
  fileObjectName,
  IMAGE_MAX_AGE_SECONDS,
  isGuid,
  mediaBucket,
} from '../../shared/storage/media-objects.ts';
import {
  copyObject,
  getObjectRange,
  headObject,
  presignedGetUrl,
  type ServedHeaders,
} from '../../shared/storage/objects.ts';

/**
 * The most one answer of this route carries: a Lambda answer is at most 6 MB once base64 has
 * inflated the bytes by 4/3. Ranges are cut to it; a whole file past it is the rare case below.
 */
export const MAX_FILE_ANSWER_BYTES = 4 * 1024 * 1024;
/** How long the redirect of that rare case lasts. */
const REDIRECT_SECONDS = 300;

/** The headers a file is stored with and answered with. */
export function fileHeaders(item: Pick<MediaItemRecord, 'type' | 'filename' | 'content_type'>): ServedHeaders {
  // A document is always an attachment: served inline from the site's origin, an uploaded HTML or
  // SVG file would run as the site. A video plays inline; its type is one of the video types.
  const kind = item.type === 'Document' ? 'attachment' : 'inline';
  const ascii = fileObjectName(item.filename);
  const utf8 = encodeURIComponent(item.filename.split(/[\\/]/).pop() ?? '').replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return {
    contentType: item.content_type,
    contentDisposition: `${kind}; filename="${ascii}"${utf8 ? `; filename*=UTF-8''${utf8}` : ''}`,
    cacheControl: `public, max-age=${IMAGE_MAX_AGE_SECONDS}`,
  };
}

/** What the request asks beyond the path. */
export interface FileConditions {
  range?: string;
  ifRange?: string;
  ifNoneMatch?: string;
}

export type FileAnswer =
  | { kind: 'bytes'; status: 200 | 206; bytes: Buffer; headers: Record<string, string>; contentType: string }
  | { kind: 'not-modified' | 'unsatisfiable'; headers: Record<string, string> }
  | { kind: 'redirect'; location: string };

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` of a file of `size` bytes; one range only (more: the whole file). */
export function parseRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (match[2] !== '' && Number(match[2]) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

async function servedItem(guid: string): Promise<MediaItemRecord> {
  const itemid = isGuid(guid) ? await mediaItemIdByGuid(guid) : undefined;
  const item = itemid === undefined ? undefined : await getMediaItem(itemid);
  // A video or document whose file is stored and checked; anything else has no file here.
  if ((item?.type !== 'GuideVideoObject' && item?.type !== 'Document') || item.status !== 'ready')
    throw new NotFoundError('No such file');
  return item;
}

/**
 * The file of the item with this guid (the path's file name is decoration, as Dozuki's
 * `/Document/<guid>/<name>`): its public copy made on first use, then the bytes asked for.
 */
export async function mediaFile(guid: string, conditions: FileConditions): Promise<FileAnswer> {
  const item = await servedItem(guid);
  const bucket = mediaBucket();
  const key = fileObjectKey(item.guid, item.filename);
  const headers = fileHeaders(item);
  let head = await headObject(bucket, key);
  if (!head) {
    try {
      await copyObject(bucket, item.original_key, key, headers);
    } catch (error) {
      if (['NoSuchKey', 'NotFound'].includes((error as Error).name)) throw new NotFoundError('No such file');
      throw error;
    }
    head = await headObject(bucket, key);
    if (!head) throw new NotFoundError('No such file');
  }
  const common: Record<string, string> = {
    'accept-ranges': 'bytes',
    etag: head.etag,
    'cache-control': headers.cacheControl!,
    'content-disposition': headers.contentDisposition!,
    'x-content-type-options': 'nosniff',
  };
  if (conditions.ifNoneMatch?.split(/\s*,\s*/).includes(head.etag)) return { kind: 'not-modified', headers: common };
  const size = head.size;
  // If-Range: the range only while the file is the one the client holds part of (a strong ETag match).
  const range =
    conditions.range !== undefined && (conditions.ifRange === undefined || conditions.ifRange === head.etag)
      ? parseRange(conditions.range, size)
      : undefined;
  if (range === 'unsatisfiable')
    return { kind: 'unsatisfiable', headers: { ...common, 'content-range': `bytes */${size}` } };
  if (range) {
    const end = Math.min(range.end, range.start + MAX_FILE_ANSWER_BYTES - 1);
    const bytes = await getObjectRange(bucket, key, range.start, end);
    return {
      kind: 'bytes',
      status: 206,
      bytes,
      contentType: headers.contentType,
      headers: { ...common, 'content-range': `bytes ${range.start}-${range.start + bytes.length - 1}/${size}` },
    };
  }
  // Past what a function may answer: reached only on the API's own host (through the site the
  // bucket serves the copy this request made), so a short-lived link to the same copy.
  if (size > MAX_FILE_ANSWER_BYTES)
    return { kind: 'redirect', location: await presignedGetUrl(bucket, key, REDIRECT_SECONDS) };
  const bytes = size === 0 ? Buffer.alloc(0) : await getObjectRange(bucket, key, 0, size - 1);
  return { kind: 'bytes', status: 200, bytes, contentType: headers.contentType, headers: common };
}
