/**
 * Images the apps can load (decision 197): the offline sync of the Dozuki apps builds every size
 * as `original + ".<size>"` and fetches it without a token; it aborts on any failed download.
 * Followed here as the app does it, over HTTP against the local stack (`GET /igi/{file}`).
 */
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { nextIds } from '../../shared/db/counters.ts';
import { insertMediaItem } from '../../shared/db/entities/media-item.ts';
import { IMAGE_SIZES } from '../../shared/domain/media.ts';
import { api, createUser, site, siteUrl } from '../support/api.ts';
import { minimalMp4 } from '../support/mp4.ts';
import { addStep, createGuide, ownSteps, publish, uploadImage, uploadReadyFile } from './guide-fixtures.ts';

/** What the app asks for besides the original (its size list); each must answer. */
const APP_SIZES = ['thumbnail', '140x105', '200x150', 'standard', '440x330', 'medium', 'large'] as const;

beforeAll(() => {
  process.env.DDB_ENDPOINT = inject('ddbEndpoint');
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  reloadConfig();
});

/** Ready library images written to the table as processing leaves them (no objects: lists only). */
async function seedLibraryImages(userid: number, count: number): Promise<void> {
  const ids = await nextIds('media', count);
  for (let start = 0; start < ids.length; start += 25) {
    await Promise.all(
      ids.slice(start, start + 25).map((itemid) =>
        insertMediaItem({
          itemid,
          type: 'GuideImage',
          userid,
          guid: randomUUID().replace(/-/g, ''),
          filename: `seed-${itemid}.png`,
          content_type: 'image/png',
          size: 1,
          status: 'ready',
          failure: null,
          original_key: `originals/${itemid}/seed-${itemid}.png`,
          sizes: ['thumbnail'],
          width: 4,
          height: 3,
          source_itemid: null,
          markup: null,
          date: 1,
          modified_date: 1,
        }),
      ),
    );
  }
}

const sizeOf = (name: string) => IMAGE_SIZES.find((size) => size.name === name)!;

/** Fetches a URL as the app's image loader does: no Authorization header. */
async function fetchImage(url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const response = await fetch(url);
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

describe('image URLs the apps build', () => {
  it('serves original + ".<size>" of every image of a guide without a token, at that size; the original is a stable /igi/<guid> URL, not presigned', async () => {
    const writer = await createUser({ privileges: ['Author'] });
    const [cover, stepImage] = await Promise.all([
      uploadImage(writer.token, 800, 600),
      uploadImage(writer.token, 800, 600),
    ]);
    const created = await createGuide(writer.token, { image: cover });
    await addStep(writer.token, created.guideid, { media: { type: 'image', data: [stepImage] } });
    await publish(writer.token, (await api('GET', `/guides/${created.guideid}`, { token: writer.token })).body);

    const reader = await createUser();
    const guide = (await api('GET', `/guides/${created.guideid}`, { token: reader.token })).body;
    const images = [guide.image, ...ownSteps(guide).flatMap((step) => step.media.data)];
    expect(images.map((image) => image.id)).toEqual([cover, stepImage]);
    for (const image of images) {
      // The real service's form: no suffix, no query, the guid a UUIDv4's hex.
      expect(image.guid).toMatch(/^[0-9a-f]{32}$/);
      expect(image.original).toBe(`${siteUrl()}/igi/${image.guid}`);
      expect(image.medium).toBe(`${image.original}.medium`);
      const original = await fetchImage(image.original);
      expect(original.status).toBe(200);
      expect(original.type).toBe('image/png');
      for (const size of APP_SIZES) {
        const fetched = await fetchImage(`${image.original}.${size}`);
        expect(fetched.status, `${image.original}.${size}`).toBe(200);
        expect(fetched.type).toMatch(/^image\//);
        const { width, height } = await sharp(fetched.bytes).metadata();
        expect({ size, width, height }).toEqual({ size, width: sizeOf(size).width, height: sizeOf(size).height });
      }
    }
  });

  it('answers the same bytes to a request carrying the app token (the iOS crawler sends it everywhere)', async () => {
    const writer = await createUser({ privileges: ['Author'] });
    const imageid = await uploadImage(writer.token, 800, 600);
    const { image } = (await api('GET', `/media/images/${imageid}`, { token: writer.token })).body;
    const withToken = await fetch(`${image.original}.thumbnail`, {
      headers: { authorization: `api ${writer.token}` },
    });
    expect(withToken.status).toBe(200);
    expect(withToken.headers.get('cache-control')).toBe('public, max-age=3600');
    expect((await sharp(Buffer.from(await withToken.arrayBuffer())).metadata()).width).toBe(96);
  });

  it('answers 404 for a made-up guid, an unknown size and a name that is no image file', async () => {
    const writer = await createUser({ privileges: ['Author'] });
    const imageid = await uploadImage(writer.token);
    const { image } = (await api('GET', `/media/images/${imageid}`, { token: writer.token })).body;
    for (const file of ['0123456789abcdef0123456789abcdef.medium', `${image.guid}.enormous`, `${image.guid}.x.y`]) {
      const response = await site('GET', `/igi/${file}`);
      expect(response.status, file).toBe(404);
    }
    expect((await site('GET', `/igi/${image.guid}.medium`)).status).toBe(200);
  });

  it('stops serving a deleted image (its objects leave the bucket)', async () => {
    const writer = await createUser({ privileges: ['Author'] });
    const imageid = await uploadImage(writer.token);
    const { image } = (await api('GET', `/media/images/${imageid}`, { token: writer.token })).body;
    expect((await fetchImage(`${image.original}.standard`)).status).toBe(200);
    const deleted = await api('DELETE', `/user/media/images/${imageid}`, { token: writer.token });
    expect(deleted.status).toBe(204);
    expect((await fetchImage(`${image.original}.standard`)).status).toBe(404);
    expect((await fetchImage(image.original)).status).toBe(404);
  });

  it('serves a video\'s poster the same way: original + ".<size>"', async () => {
    const writer = await createUser({ privileges: ['Author'] });
    const videoid = await uploadReadyFile(
      writer.token,
      'clip.mp4',
      minimalMp4({ width: 640, height: 360, durationMs: 2000 }),
    );
    const video = (await api('GET', `/media/videos/${videoid}`, { token: writer.token })).body;
    const poster = video.image.image;
    expect(poster.original).toBe(`${siteUrl()}/igi/${video.guid}`);
    const card = await fetchImage(poster.original);
    expect(card.status).toBe(200);
    expect(card.type).toBe('image/png');
    const thumbnail = await fetchImage(`${poster.original}.thumbnail`);
    expect(thumbnail.status).toBe(200);
    expect((await sharp(thumbnail.bytes).metadata()).width).toBe(96);
  });
});

describe('media library answers the apps read', () => {
  it('GET /media/images/{id} answers {image, srcid, width, height, ratio, markup, exif}, as iFixit shows', async () => {
    const writer = await createUser({ privileges: ['Author'] });
    const imageid = await uploadImage(writer.token, 800, 600);
    const answer = await api('GET', `/media/images/${imageid}`, { token: writer.token });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(['exif', 'height', 'image', 'markup', 'ratio', 'srcid', 'width']);
    expect(answer.body).toMatchObject({
      image: { id: imageid, original: expect.stringMatching(/\/igi\/[0-9a-f]{32}$/) },
      srcid: null,
      width: 800,
      height: 600,
      ratio: 'FOUR_THREE',
      markup: null,
      exif: { FileName: expect.stringMatching(/\.png$/) },
    });
  });

  it("DELETE /user/media/images?imageids=1,2 deletes like the path form, refusing a stranger's image", async () => {
    const writer = await createUser({ privileges: ['Author'] });
    const stranger = await createUser({ privileges: ['Author'] });
    const [first, second, theirs] = await Promise.all([
      uploadImage(writer.token),
      uploadImage(writer.token),
      uploadImage(stranger.token),
    ]);
    const refused = await api('DELETE', '/user/media/images', {
      token: writer.token,
      query: { imageids: `${first},${theirs}` },
    });
    expect(refused.status).toBe(403);
    expect((await api('GET', `/media/images/${first}`, { token: writer.token })).status).toBe(200);
    const deleted = await api('DELETE', '/user/media/images', {
      token: writer.token,
      query: { imageids: `${first},${second}` },
    });
    expect(deleted.status).toBe(204);
    for (const id of [first, second])
      expect((await api('GET', `/media/images/${id}`, { token: writer.token })).status).toBe(404);
    expect((await api('GET', `/media/images/${theirs}`, { token: stranger.token })).status).toBe(200);
  });

  it('GET /user/media/images?limit=1000 answers more than 200 items in one answer', async () => {
    const writer = await createUser({ privileges: ['Author'] });
    // Items written straight to the table: 205 uploads would cost the suite seconds for nothing.
    await seedLibraryImages(writer.userid, 205);
    const all = await api('GET', '/user/media/images', { token: writer.token, query: { limit: '1000' } });
    expect(all.status).toBe(200);
    expect(all.body).toHaveLength(205);
    const clamped = await api('GET', '/user/media/images', { token: writer.token, query: { limit: '5000' } });
    expect(clamped.body).toHaveLength(205);
  });
});
