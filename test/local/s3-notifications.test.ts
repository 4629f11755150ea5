/**
 * S3 event notifications, locally: the emulator reports every stored object (PUT, copy,
 * browser POST), not refused ones, and the event built from the report has the shape of the
 * recorded S3 event (events/s3/media-original-created.json) that the media processor reads.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CopyObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeEventKey } from '../../functions/pipeline/process-media.ts';
import { startS3Emulator, type LocalS3, type ObjectCreatedNotice } from '../../infra/local/s3-emulator.ts';
import { objectCreatedEvent, s3EventDispatcher } from '../../infra/local/s3-events.ts';
import { reloadConfig } from '../../shared/config.ts';
import { resetS3ClientForTests, s3Client } from '../../shared/storage/s3-client.ts';

const BUCKET = 'stepwise-notify';
let directory: string;
let emulator: LocalS3;
const notices: ObjectCreatedNotice[] = [];
let waiting: Array<() => void> = [];

function nextNotice(): Promise<ObjectCreatedNotice> {
  const seen = notices.length;
  return new Promise((resolve) => {
    const check = () => (notices.length > seen ? resolve(notices[seen]!) : waiting.push(check));
    check();
  });
}

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'stepwise-notify-'));
  emulator = await startS3Emulator({
    directory,
    buckets: [BUCKET],
    onObjectCreated: (notice) => {
      notices.push(notice);
      const waiters = waiting;
      waiting = [];
      for (const wake of waiters) wake();
    },
  });
  process.env.S3_ENDPOINT = emulator.endpoint;
  reloadConfig();
  resetS3ClientForTests();
});

afterAll(async () => {
  resetS3ClientForTests();
  await emulator?.close();
  await rm(directory, { recursive: true, force: true });
});

describe('S3 emulator notifications', () => {
  it('reports a PUT with the stored size and ETag, and a copy', async () => {
    const put = nextNotice();
    await s3Client().send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'originals/7/wiring diagram (rev 2).jpg', Body: 'twelve bytes' }),
    );
    expect(await put).toMatchObject({
      bucket: BUCKET,
      key: 'originals/7/wiring diagram (rev 2).jpg',
      eventName: 'ObjectCreated:Put',
      size: 12,
      eTag: expect.stringMatching(/^[0-9a-f]{32}$/),
    });

    const copy = nextNotice();
    await s3Client().send(
      new CopyObjectCommand({
        Bucket: BUCKET,
        Key: 'copies/a.jpg',
        CopySource: `${BUCKET}/originals/7/wiring%20diagram%20%28rev%202%29.jpg`,
      }),
    );
    expect(await copy).toMatchObject({ key: 'copies/a.jpg', eventName: 'ObjectCreated:Copy', size: 12 });
  });

  it('reports a browser POST, and nothing for one S3 refused', async () => {
    const post = await createPresignedPost(s3Client(), {
      Bucket: BUCKET,
      Key: 'uploads/form.bin',
      Conditions: [['content-length-range', 1, 100]],
      Expires: 60,
    });
    const send = (size: number) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(post.fields)) form.append(name, value);
      form.append('file', new Blob([Buffer.alloc(size, 1)]), 'form.bin');
      return fetch(post.url, { method: 'POST', body: form });
    };
    const before = notices.length;
    expect((await send(500)).status).toBe(400);
    const stored = nextNotice();
    expect((await send(50)).status).toBe(204);
    expect(await stored).toMatchObject({ key: 'uploads/form.bin', eventName: 'ObjectCreated:Post', size: 50 });
    expect(notices.slice(before).map((notice) => notice.key)).toEqual(['uploads/form.bin']);
  });
});

describe('objectCreatedEvent', () => {
  const notice: ObjectCreatedNotice = {
    bucket: 'stepwise-media',
    key: 'originals/42/Wiring diagram (rev 2).jpg',
    eventName: 'ObjectCreated:Post',
    sourceIp: '127.0.0.1',
    size: 348112,
    eTag: '0b8f2c6b1e7e8f1b0d2a7c5f3e4d6a10',
    time: new Date('2026-03-02T09:14:27.412Z'),
  };

  /** Every key path of a JSON value, e.g. Records.0.s3.object.key. */
  const shape = (value: unknown, prefix = ''): string[] =>
    value && typeof value === 'object'
      ? Object.entries(value).flatMap(([key, child]) => [`${prefix}${key}`, ...shape(child, `${prefix}${key}.`)])
      : [];

  it('has the shape of a recorded S3 event, the key encoded as S3 encodes it', () => {
    const recorded = JSON.parse(readFileSync('events/s3/media-original-created.json', 'utf8'));
    const built = objectCreatedEvent(notice, { region: 'eu-west-1', configurationId: 'ProcessMedia' });
    // versionId only exists on versioned buckets; the emulator's are not versioned.
    expect(shape(built).sort()).toEqual(
      shape(recorded)
        .filter((p) => !p.endsWith('versionId'))
        .sort(),
    );
    expect(built.Records[0]!.s3.object.key).toBe(recorded.Records[0].s3.object.key);
    expect(decodeEventKey(built.Records[0]!.s3.object.key)).toBe(notice.key);
  });

  it('is dispatched to the triggers whose bucket and prefix match', async () => {
    const seen: string[] = [];
    const dispatch = s3EventDispatcher(
      [
        {
          name: 'Originals',
          bucketName: 'stepwise-media',
          prefix: 'originals/',
          handler: async () => async (event) => seen.push(`originals:${event.Records[0]!.s3.object.key}`),
        },
        {
          name: 'Modules',
          bucketName: 'stepwise-modules',
          prefix: '',
          handler: async () => async () => seen.push('modules'),
        },
      ],
      'us-east-1',
    );
    await dispatch(notice);
    await dispatch({ ...notice, key: 'derived/42/abc.thumbnail' });
    expect(seen).toEqual(['originals:originals/42/Wiring+diagram+%28rev+2%29.jpg']);
  });
});
