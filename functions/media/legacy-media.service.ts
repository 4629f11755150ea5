/**
 * The media calls older clients make (docs/wire-fidelity.md §3.12, §3.13): the library by type
 * (/user/media/images|videos|embeds), the raw image upload with `?file=`, copying an image into
 * one's library, deleting several images, and /media/* reads by id or guid. They work on the
 * same items as /user/media/uploads (one library, one processing path: an original stored under
 * `originals/` is processed by functions/pipeline/process-media.ts).
 */
import { randomUUID } from 'node:crypto';
import { ForbiddenError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import {
  constraintForFilename,
  contentTypeForFilename,
  MEDIA_CONSTRAINTS,
  type MediaType,
} from '../../shared/domain/media.ts';
import { embedForUrl } from '../../shared/domain/embeds.ts';
import { isAdmin, isWriterOf, ownerKey, serviceAuthorFields, type Caller } from '../../shared/domain/caller.ts';
import { nextId } from '../../shared/db/counters.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { getGuides } from '../../shared/db/entities/guide.ts';
import {
  deleteMediaItem,
  getMediaItem,
  getMediaItems,
  insertMediaItem,
  listUserMediaOfType,
  mediaItemIdByGuid,
  type MediaItemRecord,
} from '../../shared/db/entities/media-item.ts';
import { canViewGuideNow } from '../../shared/content/guide-access.ts';
import {
  documentObject,
  embedObject,
  fileUrl,
  userImageItem,
  videoObject,
  type LibraryImageView,
} from '../../shared/views/media-views.ts';
import type { EmbedInput } from './media.schemas.ts';
import { cropImageToRatio, inspectImage, type CropRatio } from '../../shared/media/images.ts';
import { deleteMediaObjects, mediaBucket } from '../../shared/storage/media-objects.ts';
import { getObjectBytes } from '../../shared/storage/objects.ts';
import { imageWork, newItem, requireFilename, storeOriginal } from './media.service.ts';
import type { Page } from '../../shared/db/paging.ts';

export type LibraryPage = Page & { order?: 'ASC' | 'DESC' };

/** How many guides that show an item are checked for a reader of /media/* (the first ones recorded). */
const MAX_GUIDES_CHECKED = 100;

const imageConstraint = () => MEDIA_CONSTRAINTS.find((constraint) => constraint.type === 'GuideImage')!;

async function library(caller: Caller, type: MediaType, page: LibraryPage): Promise<MediaItemRecord[]> {
  return listUserMediaOfType(ownerKey(caller), type, page, { ascending: page.order === 'ASC' });
}

/**
 * A library image: the §2.9 item. Its `image` names every size and the original from the upload
 * answer on: `/igi/` makes what processing has not made yet from the original (decision 280).
 */
async function libraryImage(item: MediaItemRecord): Promise<LibraryImageView> {
  return { ...(await userImageItem(item)), isReady: item.status === 'ready' };
}

/** GET /user/media/images: the caller's images (§2.9), newest first unless order=ASC. */
export async function listImages(caller: Caller, page: LibraryPage) {
  return Promise.all((await library(caller, 'GuideImage', page)).map(libraryImage));
}

/** GET /user/media/videos: the caller's videos as Video objects (§2.8). */
export async function listVideos(caller: Caller, page: LibraryPage) {
  return Promise.all((await library(caller, 'GuideVideoObject', page)).map(videoObject));
}

/** GET /user/media/embeds: the caller's embeds. */
export async function listEmbeds(caller: Caller, page: LibraryPage) {
  return (await library(caller, 'GuideEmbedObject', page)).map(embedObject);
}

/**
 * POST /user/media/images?file=: the body is the image, whatever Content-Type came with it (one
 * client sends application/json over the bytes). It must decode as an image, or nothing is stored.
 */
export async function uploadImage(caller: Caller, input: { file?: string; cropToRatio?: CropRatio; body: Buffer }) {
  let filename = requireFilename(input.file, 'file');
  const constraint = constraintForFilename(filename);
  if (constraint?.type !== 'GuideImage') {
    throw ValidationError.field(
      'file',
      'unsupported_extension',
      `"${filename}" is not an image name; allowed extensions: ${imageConstraint().extensions.join(', ')}`,
    );
  }
  if (input.body.length === 0) throw ValidationError.field('file', 'empty', 'The request body (the image) is empty');
  if (input.body.length > constraint.max_raw_upload_bytes) {
    throw ValidationError.field(
      'file',
      'too_large',
      `The body is ${input.body.length} bytes; uploads through the API take at most ` +
        `${constraint.max_raw_upload_bytes}. Larger files: POST /user/media/uploads/presigned`,
    );
  }
  let body = input.body;
  // Format, pixel bounds, then every pixel decoded, in a killable child under a deadline: all
  // before the first write (decision 162).
  await imageWork('file', () => inspectImage(body));
  if (input.cropToRatio && input.cropToRatio !== 'VARIABLE') {
    const ratio = input.cropToRatio;
    const cropped = await imageWork('file', () => cropImageToRatio(body, ratio));
    body = cropped.body;
    filename = filenameForFormat(filename, cropped.format);
  }
  const item: MediaItemRecord = {
    ...newItem(caller, await nextId('media'), filename, constraint, contentTypeForFilename(filename)),
    status: 'processing',
  };
  await storeOriginal(item, body);
  return libraryImage(item);
}

/** The name with an extension that matches the format (a BMP cropped is written as PNG). */
function filenameForFormat(filename: string, format: string): string {
  if (contentTypeForFilename(filename) === `image/${format}`) return filename;
  return `${filename.replace(/\.[^.]*$/, '')}.${format === 'jpeg' ? 'jpg' : format}`;
}

/** An item by numeric id or guid; 404 when there is none of that type. */
async function findItem(idOrGuid: string, type: MediaType): Promise<MediaItemRecord> {
  const itemid = /^\d+$/.test(idOrGuid) ? Number(idOrGuid) : await mediaItemIdByGuid(idOrGuid);
  const item = itemid === undefined ? undefined : await getMediaItem(itemid);
  if (!item || item.type !== type) throw new NotFoundError(`No ${type} ${idOrGuid}`);
  return item;
}

/**
 * Who may read an item through /media/*: its owner, Admins, and whoever can read a guide that
 * shows it (recorded on guide and step writes: `used_by_guideids`).
 */
async function assertCanSee(caller: Caller | null, item: MediaItemRecord): Promise<void> {
  if (caller && (isWriterOf(caller, item) || isAdmin(caller))) return;
  const guideids = [...(item.used_by_guideids ?? [])].slice(0, MAX_GUIDES_CHECKED);
  const guides = guideids.length > 0 ? await getGuides(guideids) : [];
  if (!guides.some((guide) => canViewGuideNow(caller, guide)))
    throw new ForbiddenError('This media item is not shown by anything you can read');
}

/** GET /media/images/{imageid|guid}: `{image: Image}`. */
export async function getImage(caller: Caller | null, idOrGuid: string) {
  const item = await findItem(idOrGuid, 'GuideImage');
  await assertCanSee(caller, item);
  // iFixit's shape: `width` and `height` at the top level are what clients size the image by.
  const { image, srcid, width, height, ratio, markup, exif } = await libraryImage(item);
  return { image, srcid, width, height, ratio, markup, exif };
}

/**
 * GET /Document/{guid}/{filename}: the Document's `url`, a site path the apps put their domain
 * before. By guid only (an id would be guessable): the guid is the capability, as for images
 * (decision 197). Answers a redirect to the file's stable path on the same site (decision 312), so a
 * client that sends its Authorization along still gets the bytes; the filename is decoration.
 */
export async function documentFileLocation(guid: string): Promise<string> {
  const itemid = /^[A-Za-z0-9_-]{1,64}$/.test(guid) ? await mediaItemIdByGuid(guid) : undefined;
  const item = itemid === undefined ? undefined : await getMediaItem(itemid);
  if (item?.type !== 'Document' || item.status !== 'ready') throw new NotFoundError('No such document');
  return fileUrl(item);
}

/** GET /media/videos/{videoid|guid}: the Video object. */
export async function getVideo(caller: Caller | null, idOrGuid: string) {
  const item = await findItem(idOrGuid, 'GuideVideoObject');
  await assertCanSee(caller, item);
  return videoObject(item);
}

/** GET /media/documents/{documentid}: the Document object. */
export async function getDocument(caller: Caller | null, documentid: number) {
  const item = await findItem(String(documentid), 'Document');
  await assertCanSee(caller, item);
  return documentObject(item);
}

/**
 * POST /user/media/images/{imageid|guid}: a new image in the caller's library with the bytes of
 * one the caller can see; it is processed like any upload.
 */
export async function copyImage(caller: Caller, idOrGuid: string) {
  const source = await findItem(idOrGuid, 'GuideImage');
  await assertCanSee(caller, source);
  if (source.status !== 'ready')
    throw ValidationError.field(
      'imageid',
      'not_ready',
      `Image ${source.itemid} is ${source.status}; copy it once it is ready`,
    );
  const constraint = imageConstraint();
  const original = await getObjectBytes(mediaBucket(), source.original_key, constraint.max_bytes);
  const item: MediaItemRecord = {
    ...newItem(caller, await nextId('media'), source.filename, constraint, source.content_type),
    status: 'processing',
    source_itemid: source.itemid,
  };
  await storeOriginal(item, original);
  return libraryImage(item);
}

/**
 * DELETE /user/media/images/{ids}: deletes the caller's own images among the ids. Any id that is
 * another user's image makes the whole request 403 before anything is deleted; ids that name no
 * image (any more) are skipped, so a repeated delete is harmless.
 */
export async function deleteImages(caller: Caller, imageids: number[]): Promise<void> {
  const items = (await getMediaItems(imageids)).filter((item) => item.type === 'GuideImage');
  const foreign = items.filter((item) => !isWriterOf(caller, item));
  if (foreign.length > 0) throw new ForbiddenError(`Not your image: ${foreign.map((item) => item.itemid).join(', ')}`);
  await Promise.all(
    items.map(async (item) => {
      // Conditional on the owner, as every media delete is.
      if (await deleteMediaItem(item.itemid, ownerKey(caller))) await deleteMediaObjects(item.itemid, item.guid);
    }),
  );
}

/** POST /user/media/embeds {url}: an embed in the caller's library (ready at once: nothing to process). */
export async function createEmbed(caller: Caller, input: EmbedInput) {
  const embed = embedForUrl(input.url);
  if (!embed) throw ValidationError.field('url', 'invalid_url', 'url must be an absolute http or https URL');
  const now = nowSeconds();
  const item: MediaItemRecord = {
    itemid: await nextId('media'),
    type: 'GuideEmbedObject',
    userid: caller.userid,
    ...serviceAuthorFields(caller),
    guid: randomUUID().replace(/-/g, ''),
    filename: new URL(embed.url).hostname,
    content_type: 'text/html',
    size: 0,
    status: 'ready',
    failure: null,
    original_key: '',
    sizes: [],
    width: embed.width,
    height: embed.height,
    source_itemid: null,
    markup: null,
    embed,
    date: now,
    modified_date: now,
  };
  await insertMediaItem(item);
  return embedObject(item);
}
