/**
 * The Android app's offline sync, followed step by step as ApiSyncAdapter does it (issue 25):
 * the favorites once, with no limit; every favorited guide in full; every image of each guide
 * as `original + ".medium"` and `original + ".large"`, fetched by a plain HTTP client without
 * a token (the sync aborts on the first failed download), and the same with the app's
 * Authorization header (the iOS crawler sends it everywhere). A guide deleted since it was
 * favorited answers 404 with the real service's message, which the sync reads as "drop it".
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { IMAGE_SIZES } from '../../shared/domain/media.ts';
import { api, createUser } from '../support/api.ts';
import { addStep, createGuide, ownSteps, publish, uploadImage } from './guide-fixtures.ts';

const SYNC_SIZES = ['medium', 'large'] as const;
const dimensions = (name: string) => {
  const size = IMAGE_SIZES.find((known) => known.name === name)!;
  return { width: size.width, height: size.height };
};

async function fetchImage(
  url: string,
  token?: string,
): Promise<{ status: number; bytes: Buffer; type: string | null }> {
  const response = await fetch(url, token ? { headers: { authorization: `api ${token}` } } : {});
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

/** A published guide with a cover and a step with an image (800x600: every sync size exists). */
async function guideWithImages(token: string) {
  const [cover, stepImage] = await Promise.all([uploadImage(token, 800, 600), uploadImage(token, 800, 600)]);
  const guide = await createGuide(token, { image: cover });
  return publish(token, await addStep(token, guide.guideid, { media: { type: 'image', data: [stepImage] } }));
}

describe('the Android offline sync', () => {
  it('favorites, each favorited guide, and every image at .medium and .large without a token', async () => {
    const writer = await createUser({ privileges: ['Author'] });
    const reader = await createUser();
    const guides = await Promise.all([guideWithImages(writer.token), guideWithImages(writer.token)]);
    const gone = await publish(writer.token, await createGuide(writer.token));
    for (const guide of [...guides, gone]) {
      expect((await api('PUT', `/user/favorites/guides/${guide.guideid}`, { token: reader.token })).status).toBe(204);
    }
    const deleted = await api('DELETE', `/guides/${gone.guideid}`, {
      token: writer.token,
      query: { revisionid: gone.revisionid },
    });
    expect(deleted.status).toBe(204);

    // 1. The favorites, once, without a limit.
    const favorites = await api('GET', '/user/favorites/guides', { token: reader.token });
    expect(favorites.status).toBe(200);
    // Each entry is {guide: GuideInfo, date}: the app keeps guideid and modified_date of the summary.
    const favoriteIds = favorites.body.map((entry: { guide: { guideid: number } }) => entry.guide.guideid);
    expect(favoriteIds).toEqual(expect.arrayContaining(guides.map((guide) => guide.guideid)));
    expect(favoriteIds).not.toContain(gone.guideid);
    for (const entry of favorites.body) expect(typeof entry.guide.modified_date).toBe('number');

    // 2. Every favorited guide in full; 3. every image URL it names, as the app builds them.
    const imageUrls: string[] = [];
    for (const guideid of favoriteIds) {
      const full = await api('GET', `/guides/${guideid}`, { token: reader.token });
      expect(full.status, `guide ${guideid}`).toBe(200);
      const images = [full.body.image, ...ownSteps(full.body).flatMap((step) => step.media.data)];
      for (const image of images) imageUrls.push(...SYNC_SIZES.map((size) => `${image.original}.${size}`));
    }
    expect(imageUrls).toHaveLength(guides.length * 2 * SYNC_SIZES.length);
    for (const url of imageUrls) {
      const size = url.split('.').at(-1)!;
      const anonymous = await fetchImage(url);
      expect(anonymous.status, url).toBe(200);
      expect(anonymous.type).toMatch(/^image\//);
      const { width, height } = await sharp(anonymous.bytes).metadata();
      expect({ url, width, height }).toEqual({ url, ...dimensions(size) });
      const withToken = await fetchImage(url, reader.token);
      expect(withToken.status, url).toBe(200);
      expect(withToken.bytes.equals(anonymous.bytes)).toBe(true);
    }

    // A favorite deleted since: 404 with the real service's words, which the sync reads as "drop it".
    const missing = await api('GET', `/guides/${gone.guideid}`, { token: reader.token });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'Guide not found' });
  });
});
