/**
 * Issue 39, item 2 (decision 280): an uploaded image names every size URL from its upload answer
 * on (the Android app's `JSONHelper.parseUploadedImage` reads `image.original` at once), and in
 * the listing right after; `/igi/<guid>.<size>` of a size not made yet answers the original scaled
 * on demand, never a 404 for an image whose original is stored. Over HTTP against the local stack.
 */
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { IMAGE_SIZES } from '../../shared/domain/media.ts';
import { nextId } from '../../shared/db/counters.ts';
import { insertMediaItem } from '../../shared/db/entities/media-item.ts';
import { resetS3ClientForTests, s3Client } from '../../shared/storage/s3-client.ts';
import { api, createUser } from '../support/api.ts';

const BUCKET = 'stepwise-media';
const EVERY_SIZE = [...IMAGE_SIZES.map((size) => size.name), 'original'];

let s3: S3Client;

beforeAll(() => {
  process.env.DDB_ENDPOINT = inject('ddbEndpoint');
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  process.env.S3_ENDPOINT = inject('s3Endpoint');
  reloadConfig();
  resetS3ClientForTests();
  s3 = s3Client();
});

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();

describe('the upload answer and the listing right after name every size', () => {
  it('POST /user/media/images?file= (the Android app) answers image.original and every size at /igi/', async () => {
    const user = await createUser();
    const upload = await api('POST', '/user/media/images', {
      token: user.token,
      query: { file: 'photo.png' },
      rawBody: await png(900, 675),
      headers: { 'content-type': 'image/png' },
    });
    expect(upload.status).toBe(200);
    const { image } = upload.body;
    expect(Object.keys(image).sort()).toEqual(['guid', 'id', ...EVERY_SIZE].sort());
    expect(image.original).toMatch(new RegExp(`/igi/${image.guid}$`));
    expect(image.standard).toMatch(new RegExp(`/igi/${image.guid}\\.standard$`));
    // Right after, the listing names the same URLs, processed yet or not.
    const listed = await api('GET', '/user/media/images', { token: user.token });
    expect(listed.body[0].image).toEqual(image);
    // Every URL answers an image at once: made by processing, or on demand from the original.
    for (const size of EVERY_SIZE) {
      const response = await fetch(image[size], { headers: { authorization: `api ${user.token}` } });
      expect(response.status, size).toBe(200);
      expect(response.headers.get('content-type'), size).toMatch(/^image\//);
    }
  });
});

describe('/igi/<guid>.<size> before processing made it', () => {
  it('answers the size made from the original (fitted, not enlarged), briefly cached; the original itself bare', async () => {
    const user = await createUser();
    const itemid = await nextId('media');
    const guid = randomUUID().replace(/-/g, '');
    const original = await png(1000, 750);
    // The original is stored where the pages function may read originals, but at a key the
    // processor does not take for an item's (originals/<itemid>/<file>): the item stays
    // `processing` with no size made, as between an upload and its processing.
    const originalKey = `originals/staged-for-test/${itemid}/still-processing.png`;
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: originalKey, Body: original, ContentType: 'image/png' }));
    await insertMediaItem({
      itemid,
      type: 'GuideImage',
      userid: user.userid,
      guid,
      filename: 'still-processing.png',
      content_type: 'image/png',
      size: original.length,
      status: 'processing',
      failure: null,
      original_key: originalKey,
      sizes: [],
      width: null,
      height: null,
      source_itemid: null,
      markup: null,
      date: 1,
      modified_date: 1,
    });
    try {
      const listed = await api('GET', `/media/images/${itemid}`, { token: user.token });
      expect(listed.status).toBe(200);
      expect(Object.keys(listed.body.image).sort()).toEqual(['guid', 'id', ...EVERY_SIZE].sort());

      const medium = await fetch(listed.body.image.medium);
      expect(medium.status).toBe(200);
      expect(medium.headers.get('cache-control')).toBe('public, max-age=60');
      const made = await sharp(Buffer.from(await medium.arrayBuffer())).metadata();
      expect([made.format, made.width, made.height]).toEqual(['jpeg', 592, 444]);
      const huge = await sharp(Buffer.from(await (await fetch(listed.body.image.huge)).arrayBuffer())).metadata();
      expect([huge.width, huge.height]).toEqual([1000, 750]);

      const bare = await fetch(listed.body.image.original);
      expect(bare.status).toBe(200);
      expect(Buffer.from(await bare.arrayBuffer()).equals(original)).toBe(true);

      // Not a size of the Image object, or a guid naming no image: 404 as before.
      const siteRoot = listed.body.image.original.replace(/\/igi\/.*$/, '');
      expect((await fetch(`${siteRoot}/igi/${guid}.gigantic`)).status).toBe(404);
      expect((await fetch(`${siteRoot}/igi/${randomUUID().replace(/-/g, '')}.medium`)).status).toBe(404);
    } finally {
      await api('DELETE', `/user/media/GuideImage/${itemid}`, { token: user.token });
      await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: originalKey }));
    }
  });
});
