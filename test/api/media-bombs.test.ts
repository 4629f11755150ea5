/**
 * Hostile images over HTTP (issue 23, decision 162), through every way an image comes in: the
 * raw legacy upload (POST /user/media/images?file=), the raw upload (POST /user/media/uploads)
 * and the browser flow (presigned POST to S3, then processing). SVG under a .png name, 12000x12000
 * PNG, WebP and GIF and a decompression bomb are refused quickly, by their bytes and their
 * header, with nothing stored; in the browser flow the item fails with the reason. Before,
 * the SVG answered 500 after 29 s while its render went on, and the rest were decoded.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser } from '../support/api.ts';
import { type ImageBomb, imageBombs } from '../support/image-bombs.ts';

/** Refusals read a header (the first may start the image child): generous for a loaded machine, far below a render. */
const QUICK_MS = 5000;

let bombs: ImageBomb[];
beforeAll(async () => {
  bombs = await imageBombs();
});

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = Date.now();
  const result = await work();
  return { result, ms: Date.now() - started };
}

async function nothingStored(user: TestUser) {
  expect((await api('GET', '/user/media/current', { token: user.token })).body).toEqual([]);
  expect((await api('GET', '/user/media/images', { token: user.token })).body).toEqual([]);
}

/** Each bomb posted raw to an upload route: 422 on `file` with its code, answered quickly. */
async function refusesEveryBomb(path: string, token: string): Promise<void> {
  for (const bomb of bombs) {
    const { result, ms } = await timed(() =>
      api('POST', path, {
        token,
        query: { file: bomb.filename },
        rawBody: bomb.bytes,
        headers: { 'content-type': 'application/octet-stream' },
      }),
    );
    expect(result.status, bomb.name).toBe(422);
    expect(result.body.errors[0], bomb.name).toMatchObject({ field: 'file', code: bomb.code });
    expect(ms, bomb.name).toBeLessThan(QUICK_MS);
  }
}

describe('hostile images', () => {
  it('POST /user/media/images?file= refuses each one quickly with 422 on file, storing nothing', async () => {
    const user = await createUser();
    await refusesEveryBomb('/user/media/images', user.token);
    const svg = await api('POST', '/user/media/images', {
      token: user.token,
      query: { file: 'x.png' },
      rawBody: bombs[0]!.bytes,
      headers: { 'content-type': 'image/png' },
    });
    expect(svg.body.message).toMatch(/SVG; images must be JPEG, PNG, GIF or WebP/);
    await nothingStored(user);
  });

  it('POST /user/media/uploads refuses each one quickly with 422 on file, storing nothing', async () => {
    const user = await createUser();
    await refusesEveryBomb('/user/media/uploads', user.token);
    await nothingStored(user);
  });

  it('a browser upload of each one fails processing quickly, with the reason, and no sizes are made', async () => {
    const user = await createUser();
    for (const bomb of bombs) {
      const started = await api('POST', '/user/media/uploads/presigned', {
        token: user.token,
        body: { filename: bomb.filename, content_type: bomb.contentType },
      });
      expect(started.status, bomb.name).toBe(201);
      const form = new FormData();
      for (const [name, value] of Object.entries<string>(started.body.upload.fields)) form.append(name, value);
      form.append('file', new Blob([bomb.bytes], { type: bomb.contentType }), bomb.filename);
      const { result: item, ms } = await timed(async () => {
        expect((await fetch(started.body.upload.url, { method: 'POST', body: form })).status).toBe(204);
        for (;;) {
          const read = await api('GET', `/user/media/GuideImage/${started.body.id}`, { token: user.token });
          if (read.body.status === 'ready' || read.body.status === 'failed') return read.body;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      });
      expect(item, bomb.name).toMatchObject({ status: 'failed', isReady: false, image: null });
      expect(item.failure, bomb.name).toMatch(bomb.code === 'unsupported_format' ? /SVG/ : /12000 on a side/);
      expect(ms, bomb.name).toBeLessThan(QUICK_MS);
    }
  });

  it('BMP and TIFF names are no image names any more (422 unsupported_extension)', async () => {
    const user = await createUser();
    for (const file of ['scan.bmp', 'scan.tiff']) {
      const response = await api('POST', '/user/media/images', {
        token: user.token,
        query: { file },
        rawBody: Buffer.from('BM'),
        headers: { 'content-type': 'application/octet-stream' },
      });
      expect(response.status, file).toBe(422);
      expect(response.body.errors[0], file).toMatchObject({ field: 'file', code: 'unsupported_extension' });
    }
  });
});
