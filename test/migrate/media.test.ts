/**
 * The media crawler against a live source (the test stack): every media item the crawled guides
 * show is written as the API stored it (but for MEDIA_ATTRIBUTES_NOT_EXPOSED, each with its
 * reason next to the crawler), and every object is carried byte for byte under its own key.
 */
import { POSTER_SIZE } from '../../shared/domain/media.ts';
import { imageObjectKey } from '../../shared/storage/media-objects.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { loginAdmin } from '../support/api.ts';
import { guidesCrawler } from '../../infra/ops/migrate/resources/guides.ts';
import { MEDIA_ATTRIBUTES_NOT_EXPOSED, mediaCrawler } from '../../infra/ops/migrate/resources/media.ts';
import { contentSite, type ContentSite } from './support/content-fixtures.ts';
import {
  memoryCrawl,
  refusing,
  storedItem,
  storedMediaObject,
  withoutAttributes,
  type MemoryCrawl,
} from './support/crawl-harness.ts';

// A limited crawl lists every guide of the shared test stack, which grows with the suite it runs in.
const LIMITED_CRAWL_MS = 240_000;

let site: ContentSite;
let crawl: MemoryCrawl;
let mediaIds: number[];

/**
 * The units of this file's guides and media: the crawls list everything on the shared stack but
 * read and download only these, so they cost the same however much the rest of the suite made.
 */
const ours = (unit: string) =>
  [site.guide.guideid, site.prerequisite.guideid].some((guideid) => unit === `guide:${guideid}`) ||
  mediaIds.some((itemid) => unit === `media:${itemid}`);

beforeAll(async () => {
  site = await contentSite();
  mediaIds = [...site.images, site.videoid, site.documentid, site.embedid];
  crawl = memoryCrawl(await loginAdmin(), { onlyUnits: ours });
  await crawl.run(guidesCrawler, mediaCrawler);
});

describe('media crawler', () => {
  it('writes every media item a guide shows as stored, with its guid lookup and the guides using it', async () => {
    for (const itemid of mediaIds) {
      const stored = await storedItem(`MEDIA#${itemid}`, 'MEDIA');
      const crawled = crawl.item(`MEDIA#${itemid}`, 'MEDIA');
      expect(crawled, `media ${itemid} crawled`).toBeDefined();
      expect(withoutAttributes(crawled, MEDIA_ATTRIBUTES_NOT_EXPOSED)).toEqual(
        withoutAttributes(stored, MEDIA_ATTRIBUTES_NOT_EXPOSED),
      );
      expect(crawled!.used_by_guideids).toEqual(new Set([site.guide.guideid]));
      const guidKey = `MEDIAGUID#${stored!.guid}`;
      expect(crawl.item(guidKey, 'MEDIAGUID')).toEqual(await storedItem(guidKey, 'MEDIAGUID'));
    }
    // A document shows its date: only images, videos and embeds lack it.
    expect(crawl.item(`MEDIA#${site.documentid}`, 'MEDIA')!.date).toBe(
      (await storedItem(`MEDIA#${site.documentid}`, 'MEDIA'))!.date,
    );
  });

  it('carries every object of those items byte for byte under the key the API stored it at', async () => {
    // An item's objects: its original, and what `/igi/<guid>` serves (decision 197).
    const keysOfItem = (itemid: number, guid?: string) =>
      [...crawl.objects.values()].filter(
        (object) =>
          object.key.startsWith(`originals/${itemid}/`) ||
          (guid !== undefined &&
            (object.key === imageObjectKey(guid) || object.key.startsWith(`${imageObjectKey(guid)}.`))),
      );
    for (const itemid of [...site.images, site.videoid, site.documentid]) {
      const stored = await storedItem(`MEDIA#${itemid}`, 'MEDIA');
      const guid = stored!.guid as string;
      const objects = keysOfItem(itemid, guid);
      // The original, its copy at `/igi/<guid>` where the site has one, and one object per stored size.
      const copy = (await storedMediaObject(imageObjectKey(guid))) ? [imageObjectKey(guid)] : [];
      expect(objects.map((object) => object.key).sort()).toEqual(
        [
          stored!.original_key,
          ...copy,
          // POSTER_SIZE marks that a video has its poster card, which is the copy at `/igi/<guid>`.
          ...(stored!.sizes as string[])
            .filter((size) => size !== POSTER_SIZE)
            .map((size) => imageObjectKey(guid, size)),
        ].sort(),
      );
      for (const object of objects) {
        expect(object.bucket).toBe('media');
        expect(object.bytes.equals((await storedMediaObject(object.key))!), object.key).toBe(true);
      }
    }
    expect(keysOfItem(site.embedid)).toEqual([]);
  });

  it('moves the media counter past the ids it carried and marks each item done', () => {
    expect(crawl.ids.get('media')).toBeGreaterThanOrEqual(Math.max(...mediaIds));
    for (const itemid of mediaIds) expect(crawl.completed).toContain(`media:${itemid}`);
  });

  it(
    'reports media and a library the source refuses (403) as unexposed and carries the rest',
    async () => {
      const limited = memoryCrawl(await loginAdmin(), { onlyUnits: ours });
      await limited.runWith(
        refusing(limited.context, ['/media/videos/', '/user/media/current']),
        guidesCrawler,
        mediaCrawler,
      );
      expect(limited.unexposedDetail('the migrating account\u2019s media library')).toContain('403');
      expect(limited.isUnexposed('media items the source refused to this account (403) or has not made ready')).toBe(
        true,
      );
      expect(limited.skipped.map((skip) => skip.what)).toContain(`media item ${site.videoid}`);
      expect(limited.item(`MEDIA#${site.videoid}`, 'MEDIA')).toBeUndefined();
      expect(limited.item(`MEDIA#${site.images[0]}`, 'MEDIA')).toBeDefined();
    },
    LIMITED_CRAWL_MS,
  );
});
