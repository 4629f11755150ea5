/**
 * Media items (images, videos, documents, embeds) with their S3 objects. API 2.0 lists a
 * library only to its owner, so the crawler finds items two ways: the migrating account's own
 * library (GET /user/media/current, every field), and every item the crawled guides show (their
 * image, documents and step media), read through GET /media/* (Admins and the guides' readers).
 * Objects are downloaded from the URLs the source hands out and stored under the keys Stepwise
 * keeps them at (shared/storage/media-objects.ts); items are built by the entity file's builder.
 */
import { mediaItemCreateWrites, type MediaItemRecord } from '../../../../shared/db/entities/media-item.ts';
import { contentTypeForFilename, IMAGE_SIZES, POSTER_SIZE, type MediaType } from '../../../../shared/domain/media.ts';
import { imageDimensions } from '../../../../shared/media/images.ts';
import { imageObjectKey, originalKey } from '../../../../shared/storage/media-objects.ts';
import type { ImageView } from '../../../../shared/views/common-schemas.ts';
import type { FullGuideView } from '../../../../shared/views/guide-views.ts';
import type { MediaItemView } from '../../../../shared/views/media-item-views.ts';
import type { DocumentObject, EmbedObject, VideoObject } from '../../../../shared/views/media-views.ts';
import { itemsOfWrites, type CrawlContext, type ResourceCrawler } from '../crawl.ts';
import { forEachPageOrUnexposed } from './content-source.ts';
import { ownSteps } from './guides.ts';

/**
 * Media item attributes API 2.0 does not hand out for an item of another account (the owner's
 * own library shows them): when it was uploaded and last changed (date, modified_date; a
 * document's date is shown), which image it was edited from and the edit (source_itemid,
 * markup); the crawler writes 0, 0, null and null. test/migrate/media.test.ts compares every
 * other attribute.
 */
export const MEDIA_ATTRIBUTES_NOT_EXPOSED = ['date', 'modified_date', 'source_itemid', 'markup'] as const;

/** What the crawled guides say about one media item. */
interface MediaReference {
  itemid: number;
  type: MediaType;
  /** Guides showing it: the item's `used_by_guideids`, which lets their readers fetch it. */
  guideids: Set<number>;
  /** The author of the first guide showing it: the owner, unless the library says otherwise. */
  ownerGuess: number;
  /** An embed's object, as step media show it (API 2.0 has no other read of someone else's embed). */
  embed?: EmbedObject;
}

type References = Map<number, MediaReference>;

function refer(
  references: References,
  guide: FullGuideView,
  itemid: number | null,
  type: MediaType,
): MediaReference | undefined {
  if (itemid === null) return undefined;
  let reference = references.get(itemid);
  if (!reference) {
    reference = { itemid, type, guideids: new Set(), ownerGuess: guide.author?.userid ?? 0 };
    references.set(itemid, reference);
  }
  reference.guideids.add(guide.guideid);
  return reference;
}

/** Every media item the guides the guides crawler found show, with the guides showing each. */
async function guideReferences(context: CrawlContext): Promise<References> {
  const references: References = new Map();
  for (const guideid of context.known.all('guide')) {
    const guide = await context.api.find<FullGuideView>(`/guides/${guideid}`, { excludePrerequisiteSteps: 1 });
    if (!guide) continue;
    refer(references, guide, guide.image?.id ?? null, 'GuideImage');
    for (const document of guide.documents) refer(references, guide, document.documentid, 'Document');
    for (const step of ownSteps(guide)) {
      const { media } = step;
      if (media.type === 'image') for (const image of media.data) refer(references, guide, image.id, 'GuideImage');
      if (media.type === 'video') refer(references, guide, media.data.videoid, 'GuideVideoObject');
      if (media.type === 'embed') {
        const reference = refer(references, guide, media.data.embedid, 'GuideEmbedObject');
        if (reference && 'guid' in media.data) reference.embed = media.data;
      }
    }
  }
  return references;
}

/** The key a presigned URL names: its path after the bucket, whichever addressing style signed it. */
function keyOfUrl(url: string): string {
  const path = decodeURIComponent(new URL(url).pathname);
  const match = /(?:^|\/)((?:originals|derived)\/\d+\/.+)$/.exec(path);
  return match ? match[1] : path.replace(/^\/+/, '');
}

/** A filename from an original's URL: `originals/<itemid>/<filename>`, or the URL's last segment. */
function filenameOfUrl(url: string): string {
  const key = keyOfUrl(url);
  return key.slice(key.lastIndexOf('/') + 1);
}

/** The size names an Image object shows, in the order processing makes them. */
function sizesOf(image: ImageView | null | undefined): string[] {
  if (!image) return [];
  return IMAGE_SIZES.map((size) => size.name).filter((name) => typeof image[name] === 'string');
}

/** Downloads the original and every derived size of an item into the sink. */
class ObjectCopier {
  constructor(
    private readonly context: CrawlContext,
    private readonly item: Pick<MediaItemRecord, 'itemid' | 'guid'>,
  ) {}

  async copy(url: string, key: string): Promise<Buffer> {
    const { bytes, contentType } = await this.context.api.download(url);
    await this.store(key, bytes, contentType);
    return bytes;
  }

  async store(key: string, bytes: Buffer, contentType: string | null): Promise<void> {
    await this.context.sink.object('media', key, contentType, bytes);
  }

  async sizes(image: ImageView, sizes: string[]): Promise<void> {
    for (const size of sizes) await this.copy(String(image[size]), imageObjectKey(this.item.guid, size));
  }
}

const emptyRecord = (reference: MediaReference, guid: string, filename: string): MediaItemRecord => ({
  itemid: reference.itemid,
  type: reference.type,
  userid: reference.ownerGuess,
  guid,
  filename,
  content_type: contentTypeForFilename(filename),
  size: 0,
  status: 'ready',
  failure: null,
  original_key: originalKey(reference.itemid, filename),
  sizes: [],
  width: null,
  height: null,
  duration_ms: null,
  source_itemid: null,
  markup: null,
  date: 0,
  modified_date: 0,
});

async function imageRecord(context: CrawlContext, reference: MediaReference): Promise<MediaItemRecord | undefined> {
  const answer = await context.api.find<{ image: ImageView; exif?: { FileName?: unknown } }>(
    `/media/images/${reference.itemid}`,
  );
  if (!answer?.image.original || !answer.image.guid) return undefined;
  const { image } = answer;
  // `/igi/<guid>` names no file: the upload's name travels in exif.FileName where the source says it.
  const filename = typeof answer.exif?.FileName === 'string' ? answer.exif.FileName : filenameOfUrl(image.original!);
  const record = emptyRecord(reference, image.guid!, filename);
  const copier = new ObjectCopier(context, record);
  const original = await copier.copy(image.original!, record.original_key);
  // And where `/igi/<guid>` serves it (decision 197).
  await copier.store(imageObjectKey(record.guid), original, record.content_type);
  record.sizes = sizesOf(image);
  await copier.sizes(image, record.sizes);
  const { width, height } = await imageDimensions(original);
  return { ...record, size: original.length, width, height };
}

async function videoRecord(context: CrawlContext, reference: MediaReference): Promise<MediaItemRecord | undefined> {
  const video = await context.api.find<VideoObject>(`/media/videos/${reference.itemid}`);
  const encoding = video?.encodings[0];
  if (!video || !encoding) return undefined;
  const record = emptyRecord(reference, video.guid, video.filename);
  const copier = new ObjectCopier(context, record);
  await copier.copy(encoding.url, record.original_key);
  const poster = video.image?.image;
  record.sizes = poster ? [...sizesOf(poster), POSTER_SIZE] : [];
  if (poster) {
    await copier.sizes(poster, sizesOf(poster));
    await copier.copy(String(poster.original), imageObjectKey(record.guid));
  }
  return {
    ...record,
    content_type: encoding.mime,
    size: video.meta.file_size_in_bytes,
    width: video.width,
    height: video.height,
    duration_ms: video.meta.duration_in_ms,
  };
}

async function documentRecord(context: CrawlContext, reference: MediaReference): Promise<MediaItemRecord | undefined> {
  const document = await context.api.find<DocumentObject>(`/media/documents/${reference.itemid}`);
  if (!document?.url) return undefined;
  const record = emptyRecord(reference, document.guid, document.filename);
  await new ObjectCopier(context, record).copy(document.url, record.original_key);
  return { ...record, size: document.size, date: document.date, modified_date: document.date };
}

function embedRecord(reference: MediaReference): MediaItemRecord | undefined {
  const embed = reference.embed;
  if (!embed?.url) return undefined;
  const { duration_ms, ...record } = emptyRecord(reference, embed.guid, new URL(embed.url).hostname);
  return {
    ...record,
    content_type: 'text/html',
    original_key: '',
    width: embed.width,
    height: embed.height,
    embed: {
      url: embed.url,
      type: embed.type,
      provider_name: embed.provider_name,
      // An embed without a title shows its URL as one (decision 195): that is no title of its own.
      title: embed.title === embed.url ? null : embed.title,
      html: embed.html,
      width: embed.width ?? 0,
      height: embed.height ?? 0,
    },
  };
}

const READERS: Record<
  MediaType,
  (context: CrawlContext, reference: MediaReference) => Promise<MediaItemRecord | undefined>
> = {
  GuideImage: imageRecord,
  GuideVideoObject: videoRecord,
  Document: documentRecord,
  GuideEmbedObject: async (_context, reference) => embedRecord(reference),
};

/** Fields only the owner's own library shows, laid over what the public reads gave. */
function withOwnView(record: MediaItemRecord, own: MediaItemView, ownerid: number): MediaItemRecord {
  const image = 'imageid' in own ? own : undefined;
  return {
    ...record,
    userid: ownerid,
    filename: own.filename,
    date: own.date,
    modified_date: own.date,
    ...(image ? { source_itemid: image.srcid, markup: image.markup ?? null } : {}),
  };
}

async function crawlItem(
  context: CrawlContext,
  reference: MediaReference,
  own: { view: MediaItemView; ownerid: number } | undefined,
): Promise<void> {
  const record = await READERS[reference.type](context, reference);
  if (!record) {
    context.report.unexposed('media items the source refused to this account (403) or has not made ready');
    context.report.skipped(
      `media item ${reference.itemid}`,
      `the source did not show this ${reference.type} (or it is not ready)`,
    );
    return;
  }
  const complete = own ? withOwnView(record, own.view, own.ownerid) : record;
  if (reference.guideids.size > 0) complete.used_by_guideids = new Set(reference.guideids);
  await context.sink.items(itemsOfWrites(mediaItemCreateWrites(complete)));
}

export const mediaCrawler: ResourceCrawler = {
  name: 'media',
  after: ['guides'],
  async crawl(context) {
    context.report.unexposed(
      'media items in other accounts\u2019 libraries that no guide shows',
      'API 2.0 lists a media library to its owner only',
    );
    context.report.unexposed(
      'upload dates, edit sources and owners of media in other accounts\u2019 libraries',
      'the owner is taken to be the author of the first guide showing the item',
    );
    context.report.unexposed('media items still processing or failed', 'only ready items are readable');
    const self = await context.api.get<{ userid: number }>('/user');
    const references = await guideReferences(context);
    const ownViews = new Map<number, MediaItemView>();
    await forEachPageOrUnexposed<MediaItemView>(
      context,
      'the migrating account\u2019s media library',
      '/user/media/current',
      async (page) => {
        for (const view of page) {
          ownViews.set(view.id, view);
          if (!references.has(view.id))
            references.set(view.id, { itemid: view.id, type: view.type, guideids: new Set(), ownerGuess: self.userid });
          const reference = references.get(view.id)!;
          if (view.type === 'GuideEmbedObject' && 'html' in view) reference.embed ??= view as unknown as EmbedObject;
        }
      },
    );
    for (const reference of [...references.values()].sort((a, b) => a.itemid - b.itemid)) {
      context.known.add('media', reference.itemid);
      context.sink.idSeen('media', reference.itemid);
      const unit = `media:${reference.itemid}`;
      if (context.isDone(unit)) continue;
      const own = ownViews.get(reference.itemid);
      await crawlItem(context, reference, own ? { view: own, ownerid: self.userid } : undefined);
      await context.completed(unit);
    }
  },
};
