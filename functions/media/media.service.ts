/**
 * User media use cases. Files come in two ways: the raw body of POST /user/media/uploads
 * (small files, under the API's payload limit) or straight from the browser to S3 through a
 * presigned POST whose policy S3 enforces. Either way the original lands under
 * `originals/<itemid>/` and S3's "object created" event starts processing
 * (functions/pipeline/process-media.ts). A user sees and deletes only their own items.
 */
import { randomUUID } from 'node:crypto';
import {
  BadRequestError,
  ForbiddenError,
  NotFoundError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../shared/domain/errors.ts';
import {
  constraintForFilename,
  contentTypeForFilename,
  INVALID_MEDIA_TYPE_MESSAGE,
  isMediaType,
  MEDIA_CONSTRAINTS,
  safeFilename,
  type MediaConstraint,
} from '../../shared/domain/media.ts';
import { isWriterOf, ownerKey, serviceAuthorFields, type Caller } from '../../shared/domain/caller.ts';
import { nextId } from '../../shared/db/counters.ts';
import { nowSeconds } from '../../shared/clock.ts';
import {
  deleteMediaItem,
  getMediaItem,
  insertMediaItem,
  listUserMedia,
  mediaOwnerOf,
  type MediaItemRecord,
} from '../../shared/db/entities/media-item.ts';
import {
  editImage,
  ImageBusyError,
  ImageRefusedError,
  inspectImage,
  InvalidEditError,
} from '../../shared/media/images.ts';
import { deleteMediaObjects, mediaBucket, originalKey } from '../../shared/storage/media-objects.ts';
import { getObjectBytes, presignedUpload, putObject } from '../../shared/storage/objects.ts';
import { mediaItemView } from '../../shared/views/media-item-views.ts';
import type { ImageEditInput, PresignInput } from './media.schemas.ts';
import type { Page } from '../../shared/db/paging.ts';

/** How long a signed browser upload stays usable. */
const UPLOAD_WINDOW_SECONDS = 900;
const RAW_CONTENT_TYPE = 'application/octet-stream';

function requireConstraint(filename: string): MediaConstraint {
  const constraint = constraintForFilename(filename);
  if (!constraint) {
    const allowed = MEDIA_CONSTRAINTS.flatMap((c) => c.extensions).join(', ');
    throw ValidationError.field(
      'file',
      'unsupported_extension',
      `Files like "${filename}" are not accepted; allowed extensions: ${allowed}`,
    );
  }
  return constraint;
}

export function requireFilename(raw: string | undefined, field: string): string {
  const filename = safeFilename(raw ?? '');
  if (!filename)
    throw ValidationError.field(field, 'missing_field', `${field} (the file name, with its extension) is required`);
  return filename;
}

export function newItem(
  caller: Caller,
  itemid: number,
  filename: string,
  constraint: MediaConstraint,
  contentType: string,
): MediaItemRecord {
  const now = nowSeconds();
  return {
    itemid,
    type: constraint.type,
    userid: caller.userid,
    ...serviceAuthorFields(caller),
    guid: randomUUID().replace(/-/g, ''),
    filename,
    content_type: contentType,
    size: 0,
    status: 'uploading',
    failure: null,
    original_key: originalKey(itemid, filename),
    sizes: [],
    width: null,
    height: null,
    source_itemid: null,
    markup: null,
    date: now,
    modified_date: now,
  };
}

/**
 * Image work on a request (decision 162): an image refused for what it is becomes 422 on `field`
 * (`unsupported_format`, `not_an_image`, `too_many_pixels`, `too_slow_to_decode`), a full image
 * pool 503. Runs before anything is written, so a refusal leaves nothing behind.
 */
export async function imageWork<T>(field: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ImageRefusedError) throw ValidationError.field(field, error.code, error.message);
    if (error instanceof ImageBusyError) throw new ServiceUnavailableError(error.message);
    throw error;
  }
}

/** Stores an original the API received itself; the S3 event then starts processing. */
export async function storeOriginal(item: MediaItemRecord, body: Buffer): Promise<void> {
  await insertMediaItem(item);
  try {
    await putObject(mediaBucket(), item.original_key, body, item.content_type);
  } catch (error) {
    await deleteMediaItem(item.itemid, mediaOwnerOf(item));
    throw error;
  }
}

/** POST /user/media/uploads: the request body is the file. */
export async function uploadRaw(caller: Caller, input: { file?: string; contentType?: string; body: Buffer }) {
  const contentType = (input.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!contentType) {
    throw new BadRequestError(`Send the file as the request body with the header "Content-Type: ${RAW_CONTENT_TYPE}"`);
  }
  if (contentType !== RAW_CONTENT_TYPE) {
    throw new UnsupportedMediaTypeError(
      `Content-Type ${contentType} is not accepted here; send the file bytes as ${RAW_CONTENT_TYPE}`,
    );
  }
  const filename = requireFilename(input.file, 'file');
  const constraint = requireConstraint(filename);
  if (input.body.length === 0) throw ValidationError.field('file', 'empty', 'The request body (the file) is empty');
  if (input.body.length > constraint.max_raw_upload_bytes) {
    throw ValidationError.field(
      'file',
      'too_large',
      `The body is ${input.body.length} bytes; uploads through the API take at most ` +
        `${constraint.max_raw_upload_bytes}. Larger files go straight to storage: POST /user/media/uploads/presigned`,
    );
  }
  // An image's format and size are checked before anything is stored; its pixels are decoded by
  // processing, under the processing deadline.
  if (constraint.type === 'GuideImage') await imageWork('file', () => inspectImage(input.body, { decode: false }));
  const item: MediaItemRecord = {
    ...newItem(caller, await nextId('media'), filename, constraint, contentTypeForFilename(filename)),
    status: 'processing',
  };
  await storeOriginal(item, input.body);
  return { id: item.itemid, type: item.type };
}

/** POST /user/media/uploads/presigned: a browser upload target; S3 enforces type and size. */
export async function presignUpload(caller: Caller, input: PresignInput) {
  const filename = requireFilename(input.filename, 'filename');
  const constraint = requireConstraint(filename);
  const contentType = (input.content_type ?? contentTypeForFilename(filename)).toLowerCase();
  if (!constraint.content_types.includes(contentType)) {
    throw ValidationError.field(
      'content_type',
      'unsupported_type',
      `${contentType} is not accepted for ${constraint.name} files; allowed: ${constraint.content_types.join(', ')}`,
    );
  }
  if (input.size !== undefined && input.size > constraint.max_bytes) {
    throw ValidationError.field(
      'size',
      'too_large',
      `${constraint.name} files may have at most ${constraint.max_bytes} bytes`,
    );
  }
  const item = newItem(caller, await nextId('media'), filename, constraint, contentType);
  await insertMediaItem(item);
  const upload = await presignedUpload({
    bucket: mediaBucket(),
    key: item.original_key,
    contentType,
    // A declared size narrows the policy to exactly that many bytes at most.
    maxBytes: input.size ?? constraint.max_bytes,
    expiresInSeconds: UPLOAD_WINDOW_SECONDS,
  });
  return { id: item.itemid, type: item.type, upload };
}

/** The caller's own item of that type, or the error the route answers. */
async function ownItem(caller: Caller, type: string, itemid: number): Promise<MediaItemRecord> {
  if (!isMediaType(type)) throw new BadRequestError(INVALID_MEDIA_TYPE_MESSAGE);
  const item = await getMediaItem(itemid);
  if (!item || item.type !== type) throw new NotFoundError(`No ${type} with id ${itemid}`);
  if (!isWriterOf(caller, item)) throw new ForbiddenError('This media item belongs to another user');
  return item;
}

export async function getItem(caller: Caller, type: string, itemid: number) {
  return mediaItemView(await ownItem(caller, type, itemid));
}

export async function listCurrent(caller: Caller, page: Page) {
  const items = await listUserMedia(ownerKey(caller), page);
  return Promise.all(items.map(mediaItemView));
}

export function constraints(name?: string) {
  const wanted = name?.trim().toLowerCase();
  return MEDIA_CONSTRAINTS.filter((c) => !wanted || c.name === wanted || c.type.toLowerCase() === wanted);
}

export async function deleteItem(caller: Caller, type: string, itemid: number): Promise<void> {
  const item = await ownItem(caller, type, itemid);
  // Conditional on the owner: a concurrent delete makes this a no-op, not someone else's loss.
  const deleted = await deleteMediaItem(itemid, ownerKey(caller));
  if (deleted) await deleteMediaObjects(itemid, item.guid);
}

/** POST /user/media/images/edits: crop and markup drawn into a NEW image; the source stays. */
export async function editImageItem(caller: Caller, input: ImageEditInput) {
  const source = await getMediaItem(input.imageid);
  if (source?.type !== 'GuideImage') throw new NotFoundError(`No GuideImage with id ${input.imageid}`);
  if (!isWriterOf(caller, source)) throw new ForbiddenError('This image belongs to another user');
  if (!input.crop && !input.markup?.length) {
    throw ValidationError.field('crop', 'missing_field', 'Send crop, markup or both');
  }
  if (source.status !== 'ready') {
    throw ValidationError.field(
      'imageid',
      'not_ready',
      `Image ${source.itemid} is ${source.status}; edit it once it is ready`,
    );
  }
  const constraint = constraintForFilename(source.filename)!;
  const original = await getObjectBytes(mediaBucket(), source.original_key, constraint.max_bytes);
  let edited: Awaited<ReturnType<typeof editImage>>;
  try {
    edited = await imageWork('imageid', () => editImage(original, input));
  } catch (error) {
    if (error instanceof InvalidEditError) throw ValidationError.field(error.field, 'out_of_bounds', error.message);
    throw error;
  }
  const filename = `${source.filename.replace(/\.[^.]*$/, '')}-edited.png`;
  const item: MediaItemRecord = {
    ...newItem(caller, await nextId('media'), filename, constraint, 'image/png'),
    status: 'processing',
    source_itemid: source.itemid,
    markup: { crop: input.crop ?? null, markup: input.markup ?? [] },
  };
  await storeOriginal(item, edited.body);
  return mediaItemView(item);
}
