/**
 * Images the apps can load (decision 197): the offline sync of the Dozuki apps builds every size
 * as `original + ".<size>"` and fetches it without a token; it aborts on any failed download.
 * Followed here as the app does it, over HTTP against the local stack (`GET /igi/{file}`).
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { IMAGE_SIZES } from '../../shared/domain/media.ts';
import { api, createUser, site, siteUrl } from '../support/api.ts';
import { minimalMp4 } from '../support/mp4.ts';
import { addStep, createGuide, ownSteps, publish, uploadImage, uploadReadyFile } from './guide-fixtures.ts';

/** What the app asks for besides the original (its size list); each must answer. */
const APP_SIZES = ['thumbnail', '140x105', '200x150', 'standard', '440x330', 'medium', 'large'] as const;

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
  it(
    'serves original + ".<size>" of every image of a guide without a token, at that size; the original ' +
      'is a stable /igi/<guid> URL, not presigned',
    async () => {
      const writer = await createUser({ privileges: ['Author'] });
      const [cover, stepImage] = await Promise.all([
        uploadImage(writer.token, 1000, 750),
        uploadImage(writer.token, 1200, 900),
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
    },
  );

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

  it("serves a video's poster the same way: original + \".<size>\"", async () => {
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
