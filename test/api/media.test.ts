/**
 * User media over HTTP: raw uploads through the API, browser uploads straight to the S3
 * emulator with a presigned POST (accepted and refused), processing started by the S3 event
 * into the real image sizes, ownership, deletion and image edits.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { api, createUser, type TestUser } from '../support/api.ts';

const SIZE_NAMES = [
  'mini',
  'thumbnail',
  '140x105',
  '200x150',
  'standard',
  '440x330',
  'medium',
  'large',
  'huge',
  'original',
];

async function png(width: number, height: number, background = '#3366cc'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background } })
    .png()
    .toBuffer();
}

async function uploadRaw(user: TestUser, file: string, body: Buffer) {
  return api('POST', '/user/media/uploads', {
    token: user.token,
    query: { file },
    rawBody: body,
    headers: { 'content-type': 'application/octet-stream' },
  });
}

/** Polls the item until processing has finished (ready or failed). */
async function processed(user: TestUser, type: string, id: number) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const response = await api('GET', `/user/media/${type}/${id}`, { token: user.token });
    expect(response.status).toBe(200);
    if (response.body.status === 'ready' || response.body.status === 'failed') return response.body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${type} ${id} still processing`);
}

async function browserUpload(
  target: { url: string; fields: Record<string, string> },
  file: Buffer,
  filename: string,
  type: string,
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(target.fields)) form.append(name, value);
  form.append('file', new Blob([file], { type }), filename);
  const response = await fetch(target.url, { method: 'POST', body: form });
  return { status: response.status, body: await response.text() };
}

describe('POST /user/media/uploads (raw body)', () => {
  it('stores an image, and the S3 event makes every size of the Image object', async () => {
    const user = await createUser();
    const upload = await uploadRaw(user, 'board photo.png', await png(1200, 900));
    expect(upload.status).toBe(200);
    expect(upload.body).toEqual({ id: expect.any(Number), type: 'GuideImage' });

    const item = await processed(user, 'GuideImage', upload.body.id);
    expect(item).toMatchObject({
      id: upload.body.id,
      type: 'GuideImage',
      isReady: true,
      width: 1200,
      height: 900,
      filename: 'board photo.png',
    });
    expect(Object.keys(item.image).sort()).toEqual(['id', 'guid', ...SIZE_NAMES].sort());
    expect(item.image.guid).toBe(item.guid);

    const standard = Buffer.from(await (await fetch(item.image.standard)).arrayBuffer());
    expect(await sharp(standard).metadata()).toMatchObject({ width: 300, height: 225, format: 'jpeg' });
    const mini = Buffer.from(await (await fetch(item.image.mini)).arrayBuffer());
    expect(await sharp(mini).metadata()).toMatchObject({ width: 40, height: 30 });
    const original = await fetch(item.image.original);
    expect(Buffer.from(await original.arrayBuffer()).length).toBeGreaterThan(0);
  });

  it('types documents and videos by extension; a document is ready with download URLs', async () => {
    const user = await createUser();
    const bytes = Buffer.from('%PDF-1.4\n%fake but stored as is\n');
    const pdf = await uploadRaw(user, 'manual.pdf', bytes);
    expect(pdf.body.type).toBe('Document');
    const document = await processed(user, 'Document', pdf.body.id);
    expect(document).toMatchObject({
      documentid: pdf.body.id,
      isReady: true,
      document_extension: 'pdf',
      title: 'manual',
      size: bytes.length,
    });
    expect(await (await fetch(document.download_url)).text()).toContain('%PDF-1.4');

    const video = await uploadRaw(user, 'clip.mp4', Buffer.alloc(64, 1));
    expect(video.body.type).toBe('GuideVideoObject');
    const ready = await processed(user, 'GuideVideoObject', video.body.id);
    expect(ready).toMatchObject({
      videoid: video.body.id,
      isReady: true,
      meta: { state: 'finished', file_size_in_bytes: 64 },
    });
  });

  it('needs application/octet-stream: 400 without a Content-Type, 415 with another', async () => {
    const user = await createUser();
    const none = await api('POST', '/user/media/uploads', {
      token: user.token,
      query: { file: 'a.png' },
      rawBody: new Uint8Array([1, 2]) as unknown as Buffer,
    });
    expect(none.status).toBe(400);
    expect(none.body.message).toContain('application/octet-stream');
    const other = await api('POST', '/user/media/uploads', {
      token: user.token,
      query: { file: 'a.png' },
      rawBody: await png(4, 4),
      headers: { 'content-type': 'image/png' },
    });
    expect(other.status).toBe(415);
    expect(other.body.message).toContain('image/png');
  });

  it('answers 422 without ?file=, for an extension the site takes no files of, and for an empty body', async () => {
    const user = await createUser();
    const noName = await api('POST', '/user/media/uploads', {
      token: user.token,
      rawBody: Buffer.from('x'),
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(noName.status).toBe(422);
    expect(noName.body.errors[0]).toMatchObject({ field: 'file', code: 'missing_field' });
    const exe = await uploadRaw(user, 'tool.exe', Buffer.from('MZ'));
    expect(exe.status).toBe(422);
    expect(exe.body.errors[0].code).toBe('unsupported_extension');
    const empty = await uploadRaw(user, 'a.png', Buffer.alloc(0));
    expect(empty.status).toBe(422);
  });

  it('refuses bytes that are no image before storing (422); pixels that do not decode fail processing', async () => {
    const user = await createUser();
    const garbage = await uploadRaw(user, 'broken.png', Buffer.from('not an image at all'));
    expect(garbage.status).toBe(422);
    expect(garbage.body.errors[0]).toMatchObject({ field: 'file', code: 'not_an_image' });
    expect((await api('GET', '/user/media/current', { token: user.token })).body).toEqual([]);

    // The format and size are read from the header at upload; the pixels only by processing.
    const whole = await png(200, 150);
    const upload = await uploadRaw(user, 'half.png', whole.subarray(0, Math.floor(whole.length / 2)));
    expect(upload.status).toBe(200);
    const item = await processed(user, 'GuideImage', upload.body.id);
    expect(item).toMatchObject({ status: 'failed', isReady: false, image: null });
    expect(item.failure).toMatch(/Not a readable image/);
  });
});

describe('POST /user/media/uploads/presigned (browser uploads to S3)', () => {
  it('accepts a file within the policy (204 from S3) and the item becomes ready', async () => {
    const user = await createUser();
    const file = await png(640, 480);
    const started = await api('POST', '/user/media/uploads/presigned', {
      token: user.token,
      body: { filename: 'panel.png', content_type: 'image/png', size: file.length },
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      type: 'GuideImage',
      upload: { url: expect.stringMatching(/^http/), max_bytes: file.length },
    });
    const before = await api('GET', `/user/media/GuideImage/${started.body.id}`, { token: user.token });
    expect(before.body).toMatchObject({ status: 'uploading', isReady: false });

    const uploaded = await browserUpload(started.body.upload, file, 'panel.png', 'image/png');
    expect(uploaded.status).toBe(204);
    const item = await processed(user, 'GuideImage', started.body.id);
    expect(item).toMatchObject({ isReady: true, width: 640, height: 480 });
  });

  it('S3 refuses an oversize file (400 EntityTooLarge) and a different Content-Type (403); nothing is processed', async () => {
    const user = await createUser();
    const started = await api('POST', '/user/media/uploads/presigned', {
      token: user.token,
      body: { filename: 'small.png', size: 1000 },
    });
    expect(started.status).toBe(201);

    const oversize = await browserUpload(started.body.upload, Buffer.alloc(5000, 7), 'small.png', 'image/png');
    expect(oversize.status).toBe(400);
    expect(oversize.body).toContain('<Code>EntityTooLarge</Code>');

    const target = started.body.upload;
    const wrongType = await browserUpload(
      { ...target, fields: { ...target.fields, 'Content-Type': 'text/html' } },
      Buffer.alloc(10),
      'small.png',
      'text/html',
    );
    expect(wrongType.status).toBe(403);

    const item = await api('GET', `/user/media/GuideImage/${started.body.id}`, { token: user.token });
    expect(item.body).toMatchObject({ status: 'uploading', isReady: false });
  });

  it('refuses what the type does not take (422) before signing anything', async () => {
    const user = await createUser();
    const wrongType = await api('POST', '/user/media/uploads/presigned', {
      token: user.token,
      body: { filename: 'a.png', content_type: 'text/html' },
    });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.errors[0]).toMatchObject({ field: 'content_type', code: 'unsupported_type' });
    const tooBig = await api('POST', '/user/media/uploads/presigned', {
      token: user.token,
      body: { filename: 'a.png', size: 50 * 1024 * 1024 },
    });
    expect(tooBig.status).toBe(422);
    expect(tooBig.body.errors[0]).toMatchObject({ field: 'size', code: 'too_large' });
  });
});

describe('GET /user/media/current, GET and DELETE /user/media/{type}/{itemId}', () => {
  it("lists only the caller's items, newest first, paged", async () => {
    const user = await createUser();
    const other = await createUser();
    const first = await uploadRaw(user, 'one.txt', Buffer.from('one'));
    const second = await uploadRaw(user, 'two.txt', Buffer.from('two'));
    await uploadRaw(other, 'theirs.txt', Buffer.from('theirs'));

    const list = await api('GET', '/user/media/current', { token: user.token });
    expect(list.status).toBe(200);
    expect(list.body.map((item: { id: number }) => item.id)).toEqual([second.body.id, first.body.id]);
    const page = await api('GET', '/user/media/current', { token: user.token, query: { limit: 1, offset: 1 } });
    expect(page.body.map((item: { id: number }) => item.id)).toEqual([first.body.id]);
  });

  it("400 for a type the service does not know, 404 for an unknown id or another type, 403 for another user's item", async () => {
    const user = await createUser();
    const other = await createUser();
    const upload = await uploadRaw(user, 'notes.txt', Buffer.from('notes'));

    const badType = await api('GET', `/user/media/GuideSound/${upload.body.id}`, { token: user.token });
    expect(badType.status).toBe(400);
    expect(badType.body.message).toBe(
      'Invalid type provided in the route. Type must one of: GuideImage, GuideVideoObject, ' +
        'GuideEmbedObject, Document.',
    );
    expect((await api('GET', `/user/media/GuideImage/${upload.body.id}`, { token: user.token })).status).toBe(404);
    expect((await api('GET', '/user/media/Document/999999999', { token: user.token })).status).toBe(404);
    expect((await api('GET', `/user/media/Document/${upload.body.id}`, { token: other.token })).status).toBe(403);
    expect((await api('DELETE', `/user/media/Document/${upload.body.id}`, { token: other.token })).status).toBe(403);
  });

  it('DELETE removes the item and its stored objects (204)', async () => {
    const user = await createUser();
    const upload = await uploadRaw(user, 'gone.png', await png(300, 200));
    const item = await processed(user, 'GuideImage', upload.body.id);
    expect((await fetch(item.image.thumbnail)).status).toBe(200);

    const deleted = await api('DELETE', `/user/media/GuideImage/${upload.body.id}`, { token: user.token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api('GET', `/user/media/GuideImage/${upload.body.id}`, { token: user.token })).status).toBe(404);
    expect((await fetch(item.image.thumbnail)).status).toBe(404);
    expect((await fetch(item.image.original)).status).toBe(404);
  });
});

describe('GET /user/media/constraints', () => {
  it('lists the limits of every type and filters by name', async () => {
    const user = await createUser();
    const all = await api('GET', '/user/media/constraints', { token: user.token });
    expect(all.body.map((c: { name: string }) => c.name)).toEqual(['image', 'video', 'document']);
    const image = await api('GET', '/user/media/constraints', { token: user.token, query: { name: 'image' } });
    expect(image.body).toEqual([
      expect.objectContaining({ name: 'image', type: 'GuideImage', max_raw_upload_bytes: 4 * 1024 * 1024 }),
    ]);
    expect(image.body[0].extensions).toContain('png');
    const none = await api('GET', '/user/media/constraints', { token: user.token, query: { name: 'hologram' } });
    expect(none.body).toEqual([]);
  });
});

describe('POST /user/media/images/edits', () => {
  it('crops and draws the markup into a new image; the source is unchanged', async () => {
    const user = await createUser();
    const source = await uploadRaw(user, 'board.png', await png(800, 600, '#ffffff'));
    await processed(user, 'GuideImage', source.body.id);

    const edit = await api('POST', '/user/media/images/edits', {
      token: user.token,
      body: {
        imageid: source.body.id,
        crop: { x: 100, y: 100, width: 400, height: 300 },
        markup: [
          { shape: 'rectangle', x: 10, y: 10, width: 100, height: 80, color: 'red', stroke_width: 8 },
          { shape: 'arrow', from: { x: 350, y: 250 }, to: { x: 200, y: 150 }, color: '#00ff00' },
          { shape: 'circle', x: 300, y: 60, radius: 30, color: 'blue' },
        ],
      },
    });
    expect(edit.status).toBe(201);
    expect(edit.body).toMatchObject({ type: 'GuideImage', srcid: source.body.id, filename: 'board-edited.png' });
    const edited = await processed(user, 'GuideImage', edit.body.id);
    expect(edited).toMatchObject({ isReady: true, width: 400, height: 300 });

    const original = Buffer.from(await (await fetch(edited.image.original)).arrayBuffer());
    const { data, info } = await sharp(original).raw().toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number) =>
      Array.from(data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3));
    const [r, g, b] = pixel(12, 40); // on the rectangle's left edge
    expect(r).toBeGreaterThan(200);
    expect(g).toBeLessThan(100);
    expect(b).toBeLessThan(100);
    expect(pixel(200, 280)).toEqual([255, 255, 255]); // untouched background

    const sourceAfter = await api('GET', `/user/media/GuideImage/${source.body.id}`, { token: user.token });
    expect(sourceAfter.body).toMatchObject({ width: 800, height: 600 });
  });

  it("answers 404 for an unknown image, 403 for another user's, 422 for an empty edit or a crop off the image", async () => {
    const user = await createUser();
    const other = await createUser();
    const source = await uploadRaw(user, 'small.png', await png(200, 100));
    await processed(user, 'GuideImage', source.body.id);

    const unknown = await api('POST', '/user/media/images/edits', {
      token: user.token,
      body: { imageid: 999999999, crop: { x: 0, y: 0, width: 1, height: 1 } },
    });
    expect(unknown.status).toBe(404);
    const theirs = await api('POST', '/user/media/images/edits', {
      token: other.token,
      body: { imageid: source.body.id, crop: { x: 0, y: 0, width: 1, height: 1 } },
    });
    expect(theirs.status).toBe(403);
    const empty = await api('POST', '/user/media/images/edits', {
      token: user.token,
      body: { imageid: source.body.id },
    });
    expect(empty.status).toBe(422);
    const offImage = await api('POST', '/user/media/images/edits', {
      token: user.token,
      body: { imageid: source.body.id, crop: { x: 150, y: 0, width: 100, height: 50 } },
    });
    expect(offImage.status).toBe(422);
    expect(offImage.body.errors[0]).toMatchObject({ field: 'crop', code: 'out_of_bounds' });
    const badColor = await api('POST', '/user/media/images/edits', {
      token: user.token,
      body: {
        imageid: source.body.id,
        markup: [{ shape: 'line', from: { x: 0, y: 0 }, to: { x: 5, y: 5 }, color: 'url(#x)' }],
      },
    });
    expect(badColor.status).toBe(422);
  });
});
