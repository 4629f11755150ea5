/**
 * `npm run media:igi-backfill` (infra/ops/backfill/igi-keys.ts) against the local S3 emulator:
 * an image stored as processing stored it before decision 197 (sizes under `derived/<itemid>/`,
 * no `igi/` keys) answers 404 at its /igi/ URLs; after the backfill every size answers with the
 * right dimensions and the original with the uploaded bytes. A second run copies nothing, a run
 * resumed after the last key lists nothing, and objects of deleted items are left alone.
 */
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { IMAGE_SIZES } from '../../shared/domain/media.ts';
import { resetS3ClientForTests, s3Client } from '../../shared/storage/s3-client.ts';
import { backfillIgiKeys } from '../../infra/ops/backfill/igi-keys.ts';
import { api, createUser } from '../support/api.ts';
import { uploadImage } from './guide-fixtures.ts';
import { randomUUID } from 'node:crypto';
import { nextId } from '../../shared/db/counters.ts';
import { insertMediaItem } from '../../shared/db/entities/media-item.ts';
import { runOperatorCommand } from '../support/operator-commands.ts';

const BUCKET = 'stepwise-media';
const MEDIUM_WIDTH = IMAGE_SIZES.find((size) => size.name === 'medium')!.width;

let s3: S3Client;

beforeAll(() => {
  process.env.DDB_ENDPOINT = inject('ddbEndpoint');
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  // The command's own client (with the emulator's bucket-path fix), on the test stack's S3.
  process.env.S3_ENDPOINT = inject('s3Endpoint');
  reloadConfig();
  resetS3ClientForTests();
  s3 = s3Client();
});

async function keysUnder(prefix: string): Promise<string[]> {
  const page = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (page.Contents ?? []).map((object) => object.Key!).sort();
}

async function bytesOf(key: string): Promise<Buffer> {
  const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Buffer.from(await object.Body!.transformToByteArray());
}

/** Moves an image's objects back where processing put them before decision 197. */
async function asBeforeDecision197(itemid: number, guid: string): Promise<void> {
  for (const key of await keysUnder(`igi/${guid}`)) {
    const size = key.slice(`igi/${guid}`.length + 1);
    if (size !== '') {
      await s3.send(
        new CopyObjectCommand({
          Bucket: BUCKET,
          Key: `derived/${itemid}/${guid}.${size}`,
          CopySource: `${BUCKET}/${key}`,
        }),
      );
    }
    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
  }
}

describe('npm run media:igi-backfill', () => {
  it('copies legacy sizes and the original to their /igi/ keys, idempotently and resumably', async () => {
    const writer = await createUser({ privileges: ['Author'] });
    const imageid = await uploadImage(writer.token, 800, 600);
    const { image } = (await api('GET', `/media/images/${imageid}`, { token: writer.token })).body;
    const sizes = (await keysUnder(`igi/${image.guid}.`)).map((key) => key.split('.').at(-1)!);
    expect(sizes.length).toBeGreaterThan(3);
    const uploaded = (await keysUnder(`originals/${imageid}/`))[0]!;
    await asBeforeDecision197(imageid, image.guid);
    // Before the copy, /igi/ answers a legacy image from its stored original, made on demand (decision 280).
    expect((await fetch(`${image.original}.medium`)).status).toBe(200);
    expect(await keysUnder(`igi/${image.guid}`)).toEqual([]);
    // Leftovers of an item that no longer exists are not copied.
    const orphan = `derived/999999999/${'f'.repeat(32)}.medium`;
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: orphan, Body: 'x', ContentType: 'image/jpeg' }));

    const pages: string[] = [];
    const first = await backfillIgiKeys({ s3, bucket: BUCKET, concurrency: 3, onPage: (_, last) => pages.push(last) });
    expect(first.copied).toBeGreaterThanOrEqual(sizes.length + 1);
    expect(first.orphaned).toBeGreaterThanOrEqual(1);
    expect(await keysUnder(`igi/${'f'.repeat(32)}`)).toEqual([]);
    for (const size of sizes) {
      const response = await fetch(`${image.original}.${size}`);
      expect(response.status, size).toBe(200);
      const served = Buffer.from(await response.arrayBuffer());
      expect(served.equals(await bytesOf(`derived/${imageid}/${image.guid}.${size}`)), size).toBe(true);
      if (size === 'medium') expect((await sharp(served).metadata()).width).toBe(MEDIUM_WIDTH);
    }
    const original = await fetch(image.original);
    expect(original.status).toBe(200);
    expect(Buffer.from(await original.arrayBuffer()).equals(await bytesOf(uploaded))).toBe(true);

    const again = await backfillIgiKeys({ s3, bucket: BUCKET, concurrency: 3 });
    expect(again.copied).toBe(0);
    expect(again.present).toBeGreaterThanOrEqual(sizes.length + 1);
    const resumed = await backfillIgiKeys({ s3, bucket: BUCKET, concurrency: 3, after: pages.at(-1) });
    expect(resumed).toEqual({ listed: 0, copied: 0, present: 0, orphaned: 0 });
    // Leave the shared stack's bucket as the other files expect it: no legacy keys.
    for (const key of [orphan, ...(await keysUnder(`derived/${imageid}/`))]) {
      await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
    }
  });

  it("moves a video's legacy poster card to its Image original, through the npm command", async () => {
    const writer = await createUser({ privileges: ['Author'] });
    const itemid = await nextId('media');
    const guid = randomUUID().replace(/-/g, '');
    // A ready video as processing left it before decision 197: poster and sizes under derived/.
    await insertMediaItem({
      itemid,
      type: 'GuideVideoObject',
      userid: writer.userid,
      guid,
      filename: 'clip.mp4',
      content_type: 'video/mp4',
      size: 1,
      status: 'ready',
      failure: null,
      original_key: `originals/${itemid}/clip.mp4`,
      sizes: ['thumbnail', 'poster'],
      width: null,
      height: null,
      source_itemid: null,
      markup: null,
      date: 1,
      modified_date: 1,
    });
    const poster = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#345' } })
      .png()
      .toBuffer();
    const thumbnail = await sharp(poster).resize(32, 24).png().toBuffer();
    for (const [key, body] of [
      [`derived/${itemid}/${guid}.poster`, poster],
      [`derived/${itemid}/${guid}.thumbnail`, thumbnail],
    ] as const) {
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body, ContentType: 'image/png' }));
    }

    const run = runOperatorCommand('media:igi-backfill', ['--concurrency', '2']);
    const { code, stdout, stderr } = await run.done;
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^Done: \d+ legacy objects, \d+ copied/);
    expect((await bytesOf(`igi/${guid}`)).equals(poster)).toBe(true);
    expect((await bytesOf(`igi/${guid}.thumbnail`)).equals(thumbnail)).toBe(true);
    expect(await keysUnder(`igi/${guid}.poster`)).toEqual([]);

    const refused = await runOperatorCommand('media:igi-backfill', ['--concurrency', '0']).done;
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--concurrency must be a whole number from 1 to 64');
    for (const key of await keysUnder(`derived/${itemid}/`)) {
      await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
    }
  });
});
