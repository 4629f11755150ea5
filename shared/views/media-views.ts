/**
 * The wire objects of media items (docs/wire-fidelity.md §2.1 Image, §2.7 Document, §2.8
 * Video, §2.9 user-media image item, embeds of §2.6), shared by the media group and every view
 * that shows media (guides, steps). Images are served at stable `/igi/` paths of the site
 * (decision 197), and so are videos' and documents' files, at `/igi/<guid>/<name>` (decision 312):
 * stable URLs without a signature, which a client may fetch with its Authorization header.
 */
import * as z from 'zod/mini';
import { extensionOf, IMAGE_SIZES, POSTER_HEIGHT, POSTER_SIZE, POSTER_WIDTH, type MediaType } from '../domain/media.ts';
import type { MediaItemRecord } from '../db/entities/media-item.ts';
import { filePublicPath, imagePublicPath } from '../storage/media-objects.ts';
import { siteUrl } from '../config.ts';
import { imageSchema, type ImageView } from './common-schemas.ts';
import { linkEmbedHtml, providerUrl } from '../domain/embeds.ts';

const nullableNumber = z.nullable(z.number());

/** The user-media image item (§2.9): `imageid` and `guid` on top, as older clients read it. */
export const imageItemSchema = z.object({
  imageid: z.int(),
  guid: z.string(),
  image: imageSchema,
  srcid: z.nullable(z.int()),
  width: nullableNumber,
  height: nullableNumber,
  ratio: z.enum(['ONE_ONE', 'FOUR_THREE', 'VARIABLE']),
  markup: z.unknown(),
  exif: z.object({ FileName: z.string() }),
});

/** A library image (GET/POST /user/media/images): the item and whether its sizes exist yet. */
export const libraryImageSchema = z.extend(imageItemSchema, { isReady: z.boolean() });

/** One encoding of a video: stored as uploaded, so a ready video has the original alone. */
export const videoEncodingSchema = z.object({
  column: z.string(),
  label: z.string(),
  width: nullableNumber,
  height: nullableNumber,
  codecs: z.nullable(z.string()),
  mime: z.string(),
  always_generate: z.boolean(),
  url: z.string(),
  format: z.string(),
});

/** The Video object (§2.8). */
export const videoSchema = z.object({
  videoid: z.int(),
  guid: z.string(),
  srcid: z.null(),
  filename: z.string(),
  duration: nullableNumber,
  width: nullableNumber,
  height: nullableNumber,
  image: z.nullable(
    z.object({
      image: imageSchema,
      srcid: z.null(),
      width: z.number(),
      height: z.number(),
      ratio: z.string(),
      markup: z.null(),
      exif: z.array(z.unknown()),
    }),
  ),
  meta: z.object({
    id: z.int(),
    format: z.string(),
    width: nullableNumber,
    height: nullableNumber,
    duration_in_ms: nullableNumber,
    file_size_in_bytes: z.number(),
    state: z.string(),
  }),
  encodings: z.array(videoEncodingSchema),
});

/** The Document object (§2.7); `url` and `download_url` are null until the file is stored. */
export const documentSchema = z.object({
  documentid: z.int(),
  guid: z.string(),
  date: z.int(),
  size: z.number(),
  pages: z.null(),
  filename: z.string(),
  title: z.string(),
  document_extension: z.string(),
  image: z.null(),
  url: z.nullable(z.string()),
  download_url: z.nullable(z.string()),
  display: z.null(),
});

/**
 * An embed as step media shows it and GET /user/media/embeds lists it: the oEmbed fields the
 * Android app reads with getString/getInt (`url, width, height, version, html, provider_url, type,
 * embedid, title`) are always there and never null (decision 195).
 */
export const embedSchema = z.object({
  embedid: z.int(),
  guid: z.string(),
  type: z.enum(['video', 'link']),
  version: z.literal('1.0'),
  url: z.string(),
  html: z.string(),
  width: z.int(),
  height: z.int(),
  provider_name: z.nullable(z.string()),
  provider_url: z.string(),
  title: z.string(),
});

export type ImageItemView = z.output<typeof imageItemSchema>;
export type LibraryImageView = z.output<typeof libraryImageSchema>;
export type VideoObject = z.output<typeof videoSchema>;
export type DocumentObject = z.output<typeof documentSchema>;
export type EmbedObject = z.output<typeof embedSchema>;

/**
 * The media objects a view shows, by id (built from one BatchGet by viewMediaById). An id absent
 * from its map (deleted, not ready, another type) is shown as its id alone.
 */
export interface ViewMedia {
  images: ReadonlyMap<number, ImageView>;
  videos: ReadonlyMap<number, VideoObject>;
  documents: ReadonlyMap<number, DocumentObject>;
  embeds: ReadonlyMap<number, EmbedObject>;
}

/**
 * Where the site serves a video's or document's file: `/igi/<guid>/<name>`, stable, no signature
 * (decision 312). A document is served as an attachment; a video inline, with ranges.
 */
export function fileUrl(item: Pick<MediaItemRecord, 'guid' | 'filename'>): string {
  return `${siteUrl()}${filePublicPath(item.guid, item.filename)}`;
}

/**
 * Where the site serves an image object: a stable URL, no signature (decision 197). The apps
 * build every size as `original + ".<size>"` and fetch it without a token; the unguessable guid
 * is the capability, as on Dozuki.
 */
export function imageUrl(guid: string, size?: string): string {
  return `${siteUrl()}${imagePublicPath(guid, size)}`;
}

function sizeUrls(item: MediaItemRecord, image: ImageView): void {
  for (const size of IMAGE_SIZES) {
    if (item.sizes.includes(size.name)) image[size.name] = imageUrl(item.guid, size.name);
  }
}

/**
 * The Image object: id, guid, its sizes and `original` (the bare `/igi/<guid>`). A processed
 * image names the sizes processing made (every one); one still processing names every size from
 * its upload answer on, since `/igi/` makes a size not made yet from the original (decision 280);
 * one not stored yet (uploading) or refused (failed), its id and guid alone.
 */
export async function imageObject(item: MediaItemRecord): Promise<ImageView> {
  const image: ImageView = { id: item.itemid, guid: item.guid };
  if (item.status === 'ready') sizeUrls(item, image);
  else if (item.status === 'processing')
    for (const size of IMAGE_SIZES) image[size.name] = imageUrl(item.guid, size.name);
  // Not stored yet (a browser upload on its way) or refused: nothing to show at any URL.
  else return image;
  image.original = imageUrl(item.guid);
  return image;
}

const ratioOf = (item: Pick<MediaItemRecord, 'width' | 'height'>): ImageItemView['ratio'] => {
  if (!item.width || !item.height) return 'VARIABLE';
  const ratio = item.width / item.height;
  if (Math.abs(ratio - 4 / 3) < 0.01) return 'FOUR_THREE';
  if (Math.abs(ratio - 1) < 0.01) return 'ONE_ONE';
  return 'VARIABLE';
};

/** The user-media image item (§2.9) with `imageid` and `guid` on top, as older clients read it. */
export async function userImageItem(item: MediaItemRecord): Promise<ImageItemView> {
  return {
    imageid: item.itemid,
    guid: item.guid,
    image: await imageObject(item),
    srcid: item.source_itemid,
    width: item.width,
    height: item.height,
    ratio: ratioOf(item),
    markup: item.markup ?? null,
    exif: { FileName: item.filename },
  };
}

/** A video's poster as the Image object: the sizes of the poster card made at processing. */
async function posterImage(item: MediaItemRecord): Promise<ImageView | null> {
  if (!item.sizes.includes(POSTER_SIZE)) return null;
  const image: ImageView = { id: item.itemid, guid: item.guid };
  sizeUrls(item, image);
  image.original = imageUrl(item.guid);
  return image;
}

/**
 * The Video object (§2.8). Videos are stored as uploaded (no transcoding), so a ready video has
 * one encoding, the original; its `image` is the poster card made when it was processed.
 */
export async function videoObject(item: MediaItemRecord): Promise<VideoObject> {
  const ready = item.status === 'ready';
  const poster = ready ? await posterImage(item) : null;
  const extension = extensionOf(item.filename);
  return {
    videoid: item.itemid,
    guid: item.guid,
    srcid: null,
    filename: item.filename,
    duration: item.duration_ms ?? null,
    width: item.width,
    height: item.height,
    image: poster
      ? {
          image: poster,
          srcid: null,
          width: POSTER_WIDTH,
          height: POSTER_HEIGHT,
          ratio: 'VARIABLE',
          markup: null,
          exif: [],
        }
      : null,
    meta: {
      id: item.itemid,
      format: extension,
      width: item.width,
      height: item.height,
      duration_in_ms: item.duration_ms ?? null,
      file_size_in_bytes: item.size,
      state: ready ? 'finished' : item.status,
    },
    encodings: ready
      ? [
          {
            column: 'ORIGINAL',
            label: 'Original',
            width: item.width,
            height: item.height,
            codecs: null,
            mime: item.content_type,
            always_generate: false,
            url: fileUrl(item),
            format: extension,
          },
        ]
      : [],
  };
}

/**
 * The Document object (§2.7). `url` is a site path the apps put their domain before
 * (`/Document/<guid>/<filename>`, which redirects to the file's stable path); `download_url` is
 * that path (`/igi/<guid>/<name>`), served as an attachment.
 */
export async function documentObject(item: MediaItemRecord): Promise<DocumentObject> {
  const ready = item.status === 'ready';
  return {
    documentid: item.itemid,
    guid: item.guid,
    date: item.date,
    size: item.size,
    pages: null,
    filename: item.filename,
    title: item.filename.replace(/\.[^.]*$/, ''),
    document_extension: extensionOf(item.filename),
    image: null,
    url: ready ? `/Document/${item.guid}/${encodeURIComponent(item.filename)}` : null,
    download_url: ready ? fileUrl(item) : null,
    display: null,
  };
}

/** An embed as step media shows it (`{type: "embed", data: …}`) and GET /user/media/embeds lists it. */
export function embedObject(item: MediaItemRecord): EmbedObject {
  const embed = item.embed;
  const url = embed?.url ?? '';
  return {
    embedid: item.itemid,
    guid: item.guid,
    type: embed?.type ?? 'link',
    version: '1.0',
    url,
    // A link is rebuilt from its URL, so links stored before it had a `src` get one too.
    html: embed && embed.type !== 'link' ? embed.html : linkEmbedHtml(url),
    width: Math.round(embed?.width ?? 0),
    height: Math.round(embed?.height ?? 0),
    provider_name: embed?.provider_name ?? null,
    provider_url: providerUrl(url),
    title: embed?.title ?? url,
  };
}

/** Whether an item is ready and of the type a view expects. */
export const isReady = (item: MediaItemRecord, type: MediaType): boolean =>
  item.type === type && item.status === 'ready';

/** Whether an item can be shown as an Image object. */
export const isReadyImage = (item: MediaItemRecord): boolean => isReady(item, 'GuideImage');
