/**
 * Media the way older clients call it (docs/wire-fidelity.md §3.12, §3.13) over HTTP: the library by type,
 * the raw image upload with any Content-Type, copies, multi-deletes, embeds, /media/* reads with
 * their 403/404, and guides and steps reading back full Video, Document and embed objects.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, site, siteUrl, type TestUser } from '../support/api.ts';
import { addStep, createGuide, ownSteps, publish, uploadImage, uploadReadyFile } from './guide-fixtures.ts';
import { minimalMp4 } from '../support/mp4.ts';

const author = () => createUser({ privileges: ['Author'] });

async function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#2a9d8f' } })
    .png()
    .toBuffer();
}

function postImage(
  token: string | undefined,
  body: Buffer | string,
  query: Record<string, string>,
  contentType = 'image/png',
) {
  return api('POST', '/user/media/images', { token, query, rawBody: body, headers: { 'content-type': contentType } });
}

/** Polls the legacy library until the image is processed; returns its list item. */
async function readyLibraryImage(user: TestUser, imageid: number) {
  for (let attempt = 0; attempt < 400; attempt++) {
    const list = await api('GET', '/user/media/images', { token: user.token, query: { limit: 200 } });
    expect(list.status).toBe(200);
    const item = list.body.find((entry: { imageid: number }) => entry.imageid === imageid);
    if (item?.isReady) return item;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`image ${imageid} still processing`);
}

const video = (token: string) => uploadReadyFile(token, 'clip.mp4', Buffer.alloc(256, 7));
const pdf = (token: string) => uploadReadyFile(token, 'torque table.pdf', Buffer.from('%PDF-1.4\n% torque table\n'));

async function embed(token: string, url = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ') {
  const response = await api('POST', '/user/media/embeds', { token, body: { url } });
  expect(response.status).toBe(201);
  return response.body;
}

describe('POST /user/media/images (raw image body)', () => {
  it('stores the image whatever Content-Type comes with it, answers the item with imageid and image, and processes it into the one library', async () => {
    const user = await createUser();
    const bytes = await png(640, 480);
    // One client sends the bytes labelled application/json.
    const upload = await postImage(user.token, bytes, { file: 'bench.png' }, 'application/json');
    expect(upload.status).toBe(200);
    expect(upload.body).toMatchObject({
      imageid: expect.any(Number),
      guid: expect.any(String),
      image: { id: upload.body.imageid, guid: upload.body.guid },
      ratio: expect.any(String),
    });

    const item = await readyLibraryImage(user, upload.body.imageid);
    expect(item).toMatchObject({
      imageid: upload.body.imageid,
      width: 640,
      height: 480,
      ratio: 'FOUR_THREE',
      exif: { FileName: 'bench.png' },
    });
    expect(Object.keys(item.image)).toEqual(
      expect.arrayContaining(['id', 'guid', 'mini', 'thumbnail', 'standard', 'medium', 'large', 'original']),
    );
    const original = Buffer.from(await (await fetch(item.image.original)).arrayBuffer());
    expect(original.equals(bytes)).toBe(true);

    // The same item through the spec's typed route (one library, one set of items).
    const typed = await api('GET', `/user/media/GuideImage/${upload.body.imageid}`, { token: user.token });
    expect(typed.body).toMatchObject({
      id: upload.body.imageid,
      imageid: upload.body.imageid,
      isReady: true,
      guid: upload.body.guid,
    });
    const current = await api('GET', '/user/media/current', { token: user.token });
    expect(current.body.map((entry: { id: number }) => entry.id)).toContain(upload.body.imageid);

    // A browser upload (presigned flow) lands in the same list, not ready until its file arrives.
    const signed = await api('POST', '/user/media/uploads/presigned', {
      token: user.token,
      body: { filename: 'later.png', content_type: 'image/png' },
    });
    const listed = await api('GET', '/user/media/images', { token: user.token });
    expect(listed.body.map((entry: { imageid: number }) => entry.imageid)).toEqual([
      signed.body.id,
      upload.body.imageid,
    ]);
    expect(listed.body[0]).toMatchObject({ isReady: false, image: { id: signed.body.id, guid: expect.any(String) } });
    expect(listed.body[0].image.original).toBeUndefined();
  });

  it('crops to ONE_ONE or FOUR_THREE around the centre', async () => {
    const user = await createUser();
    const square = await postImage(
      user.token,
      await png(300, 200),
      { file: 'wide.png', cropToRatio: 'ONE_ONE' },
      'application/octet-stream',
    );
    expect(square.status).toBe(200);
    expect(await readyLibraryImage(user, square.body.imageid)).toMatchObject({
      width: 200,
      height: 200,
      ratio: 'ONE_ONE',
    });
    const jpeg = await sharp({ create: { width: 400, height: 400, channels: 3, background: '#e76f51' } })
      .jpeg()
      .toBuffer();
    const fourThree = await postImage(
      user.token,
      jpeg,
      { file: 'square.jpg', cropToRatio: 'FOUR_THREE' },
      'image/jpeg',
    );
    expect(await readyLibraryImage(user, fourThree.body.imageid)).toMatchObject({
      width: 400,
      height: 300,
      ratio: 'FOUR_THREE',
    });
    const bad = await postImage(user.token, jpeg, { file: 'square.jpg', cropToRatio: 'THREE_TWO' });
    expect(bad.status).toBe(422);
  });

  it('refuses empty, truncated and non-image bodies and non-image names with 422, storing nothing', async () => {
    const user = await createUser();
    const bytes = await png(200, 150);
    const cases: Array<[Buffer | string, Record<string, string>, string]> = [
      [Buffer.alloc(0), { file: 'empty.png' }, 'empty'],
      [bytes.subarray(0, Math.floor(bytes.length / 2)), { file: 'half.png' }, 'not_an_image'],
      ['{"not": "an image"}', { file: 'fake.png' }, 'not_an_image'],
      [bytes, { file: 'notes.pdf' }, 'unsupported_extension'],
      [bytes, {}, 'missing_field'],
    ];
    for (const [body, query, code] of cases) {
      const response = await postImage(user.token, body, query, 'application/json');
      expect(response.status, code).toBe(422);
      expect(response.body.message).toEqual(expect.any(String));
      expect(response.body.errors[0]).toMatchObject({ field: 'file', code });
    }
    expect((await api('GET', '/user/media/images', { token: user.token })).body).toEqual([]);
    expect((await api('GET', '/user/media/current', { token: user.token })).body).toEqual([]);
  });

  it('needs a signed-in user (401)', async () => {
    const response = await postImage(undefined, await png(10, 10), { file: 'a.png' });
    expect(response.status).toBe(401);
    expect(response.body.message).toEqual(expect.any(String));
  });
});

describe('GET /user/media/images|videos|embeds', () => {
  it("lists only the caller's items of that type as bare arrays, newest first, paged with limit/offset and order", async () => {
    const user = await createUser();
    const other = await createUser();
    const first = await uploadImage(user.token, 40, 30);
    const second = await uploadImage(user.token, 40, 30);
    const third = await uploadImage(user.token, 40, 30);
    await uploadImage(other.token, 40, 30);
    const videoid = await video(user.token);
    await pdf(user.token);

    const all = await api('GET', '/user/media/images', { token: user.token });
    expect(all.status).toBe(200);
    expect(all.body.map((item: { imageid: number }) => item.imageid)).toEqual([third, second, first]);
    expect(all.body[0]).toMatchObject({
      imageid: third,
      guid: expect.any(String),
      image: { id: third, original: expect.any(String) },
      srcid: null,
      markup: null,
    });
    const page = await api('GET', '/user/media/images', { token: user.token, query: { limit: 1, offset: 1 } });
    expect(page.body.map((item: { imageid: number }) => item.imageid)).toEqual([second]);
    const ascending = await api('GET', '/user/media/images', {
      token: user.token,
      query: { order: 'asc', limit: 2 },
    });
    expect(ascending.body.map((item: { imageid: number }) => item.imageid)).toEqual([first, second]);
    expect((await api('GET', '/user/media/images', { token: user.token, query: { offset: 3 } })).body).toEqual([]);
    expect((await api('GET', '/user/media/images', { token: user.token, query: { order: 'SIDEWAYS' } })).status).toBe(
      422,
    );

    const videos = await api('GET', '/user/media/videos', { token: user.token });
    expect(videos.status).toBe(200);
    expect(videos.body).toHaveLength(1);
    expect(videos.body[0]).toMatchObject({
      videoid,
      filename: 'clip.mp4',
      meta: { state: 'finished' },
      image: { image: { id: videoid, guid: expect.any(String) } },
    });
    expect(videos.body[0].encodings).toHaveLength(1);
    const encoded = Buffer.from(await (await fetch(videos.body[0].encodings[0].url)).arrayBuffer());
    expect(encoded.equals(Buffer.alloc(256, 7))).toBe(true);
    const poster = await fetch(videos.body[0].image.image.standard);
    expect(poster.status).toBe(200);
    expect((await sharp(Buffer.from(await poster.arrayBuffer())).metadata()).width).toBe(300);

    expect((await api('GET', '/user/media/embeds', { token: user.token })).body).toEqual([]);
    const made = await embed(user.token);
    const embeds = await api('GET', '/user/media/embeds', { token: user.token });
    expect(embeds.body).toEqual([made]);
    expect((await api('GET', '/user/media/embeds', { token: other.token })).body).toEqual([]);
  });

  it('answers 401 without a token', async () => {
    for (const path of ['/user/media/images', '/user/media/videos', '/user/media/embeds']) {
      expect((await api('GET', path)).status).toBe(401);
    }
  });
});

describe('videos', () => {
  it('reads width, height and duration from the MP4 boxes, even when moov comes after the media data', async () => {
    const user = await createUser();
    const file = minimalMp4({ width: 1280, height: 720, durationMs: 42_500, mdatBytes: 300_000 });
    const videoid = await uploadReadyFile(user.token, 'bench.mp4', file);
    const read = await api('GET', `/media/videos/${videoid}`, { token: user.token });
    expect(read.body).toMatchObject({
      videoid,
      width: 1280,
      height: 720,
      duration: 42_500,
      meta: { duration_in_ms: 42_500, width: 1280, height: 720 },
    });
    expect(read.body.encodings[0]).toMatchObject({ width: 1280, height: 720, format: 'mp4' });
    expect(read.body.image).toMatchObject({ width: 1280, height: 720, image: { id: videoid } });
  });
});

describe('POST /user/media/embeds', () => {
  it('makes a provider player from a YouTube or Vimeo URL and a plain link otherwise, escaping the URL; 422 for a non-http URL', async () => {
    const user = await createUser();
    const youtube = await embed(user.token, 'https://youtu.be/dQw4w9WgXcQ');
    expect(youtube).toMatchObject({ type: 'video', provider_name: 'YouTube', width: 640, height: 360 });
    expect(youtube.html).toBe(
      '<iframe src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ" width="640" height="360" ' +
        'frameborder="0" allow="fullscreen; picture-in-picture" allowfullscreen></iframe>',
    );
    expect((await embed(user.token, 'https://vimeo.com/76979871')).html).toContain(
      'https://player.vimeo.com/video/76979871',
    );
    const link = await embed(user.token, 'https://example.com/a?b="><script>alert(1)</script>');
    expect(link.type).toBe('link');
    expect(link.html).not.toContain('<script>');
    expect(link.html).toMatch(/^<a href="https:\/\/example\.com\/a\?b=/);
    for (const url of ['javascript:alert(1)', 'not a url', 'ftp://example.com/x']) {
      const bad = await api('POST', '/user/media/embeds', { token: user.token, body: { url } });
      expect(bad.status, url).toBe(422);
      expect(bad.body.errors[0]).toMatchObject({ field: 'url', code: 'invalid_url' });
    }
  });
});

describe('POST /user/media/images/{imageid|guid} and DELETE /user/media/images/{ids}', () => {
  it('copies an image the caller can see (by id or guid) into the caller library; 403 for one the caller cannot see, 404 when unknown', async () => {
    const owner = await author();
    const copier = await createUser();
    const imageid = await uploadImage(owner.token, 80, 60);
    const { guid } = (await api('GET', `/user/media/GuideImage/${imageid}`, { token: owner.token })).body;

    expect((await api('POST', `/user/media/images/${imageid}`, { token: copier.token })).status).toBe(403);
    expect((await api('POST', `/user/media/images/${'f'.repeat(32)}`, { token: copier.token })).status).toBe(404);
    expect((await api('POST', '/user/media/images/999999999', { token: copier.token })).status).toBe(404);
    expect((await api('POST', `/user/media/images/${imageid}`)).status).toBe(401);

    // Shown by a published guide, the image may be copied by that guide's readers.
    const guide = await createGuide(owner.token, { image: imageid });
    await publish(owner.token, guide);
    const copy = await api('POST', `/user/media/images/${guid}`, { token: copier.token });
    expect(copy.status).toBe(200);
    expect(copy.body).toMatchObject({ srcid: imageid, image: { id: copy.body.imageid } });
    expect(copy.body.imageid).not.toBe(imageid);
    const copied = await readyLibraryImage(copier, copy.body.imageid);
    expect(copied).toMatchObject({ width: 80, height: 60 });
    expect(copied.guid).not.toBe(guid);
    const ownCopy = await api('POST', `/user/media/images/${imageid}`, { token: owner.token });
    expect(ownCopy.status).toBe(200);
  });

  it("deletes the caller's own images (comma-separated); another user's id makes it 403 with nothing deleted; unknown ids are skipped", async () => {
    const user = await createUser();
    const other = await createUser();
    const [a, b, c] = [
      await uploadImage(user.token, 30, 30),
      await uploadImage(user.token, 30, 30),
      await uploadImage(user.token, 30, 30),
    ];
    const foreign = await uploadImage(other.token, 30, 30);
    const objectUrl = (await readyLibraryImage(user, a)).image.original;

    const refused = await api('DELETE', `/user/media/images/${a},${foreign}`, { token: user.token });
    expect(refused.status).toBe(403);
    expect((await api('GET', '/user/media/images', { token: user.token })).body).toHaveLength(3);
    expect((await api('GET', `/user/media/GuideImage/${foreign}`, { token: other.token })).status).toBe(200);

    const deleted = await api('DELETE', `/user/media/images/${a},${c},999999999`, { token: user.token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect(
      (await api('GET', '/user/media/images', { token: user.token })).body.map(
        (item: { imageid: number }) => item.imageid,
      ),
    ).toEqual([b]);
    expect((await api('GET', `/user/media/GuideImage/${a}`, { token: user.token })).status).toBe(404);
    expect((await fetch(objectUrl)).status).toBe(404);
    expect((await api('DELETE', `/user/media/images/${a}`, { token: user.token })).status).toBe(204);
    // A path that is not an id list names nothing (404, as every malformed path id).
    expect((await api('DELETE', '/user/media/images/1,x', { token: user.token })).status).toBe(404);
    expect((await api('DELETE', `/user/media/images/${b}`)).status).toBe(401);
  });
});

describe('GET /media/images|videos|documents', () => {
  it('shows its owner and Admins the object, by id or guid; 404 when unknown', async () => {
    const user = await createUser();
    const imageid = await uploadImage(user.token, 40, 30);
    const videoid = await video(user.token);
    const documentid = await pdf(user.token);
    const image = await api('GET', `/media/images/${imageid}`, { token: user.token });
    expect(image.status).toBe(200);
    expect(Object.keys(image.body).sort()).toEqual(['exif', 'height', 'image', 'markup', 'ratio', 'srcid', 'width']);
    expect(image.body.image).toMatchObject({
      id: imageid,
      guid: expect.any(String),
      original: expect.any(String),
      thumbnail: expect.any(String),
    });
    const byGuid = await api('GET', `/media/images/${image.body.image.guid}`, { token: await loginAdmin() });
    expect(byGuid.body.image.id).toBe(imageid);

    const videoBody = (await api('GET', `/media/videos/${videoid}`, { token: user.token })).body;
    expect(videoBody).toMatchObject({ videoid, encodings: [{ url: expect.any(String), mime: 'video/mp4' }] });
    expect((await api('GET', `/media/videos/${videoBody.guid}`, { token: user.token })).body.videoid).toBe(videoid);

    const documentBody = (await api('GET', `/media/documents/${documentid}`, { token: user.token })).body;
    expect(documentBody).toMatchObject({
      documentid,
      filename: 'torque table.pdf',
      title: 'torque table',
      document_extension: 'pdf',
      size: 24,
      date: expect.any(Number),
    });
    // A site path the apps put the domain before; it redirects to the file.
    expect(documentBody.url).toBe(`/Document/${documentBody.guid}/torque%20table.pdf`);
    expect(await (await fetch(siteUrl() + documentBody.url)).text()).toContain('torque table');
    expect((await site('GET', '/Document/0123456789abcdef0123456789abcdef/x.pdf')).status).toBe(404);
    expect((await fetch(documentBody.download_url)).headers.get('content-disposition')).toContain('attachment');

    // Wrong kind and unknown ids are 404.
    expect((await api('GET', `/media/images/${videoid}`, { token: user.token })).status).toBe(404);
    expect((await api('GET', `/media/videos/${imageid}`, { token: user.token })).status).toBe(404);
    expect((await api('GET', '/media/documents/999999999', { token: user.token })).status).toBe(404);
    expect((await api('GET', `/media/images/${'a'.repeat(32)}`, { token: user.token })).status).toBe(404);
    expect((await api('GET', '/media/images/not-a-guid!', { token: user.token })).status).toBe(404);
  });

  it("answers 403 to another user until a guide that user can read shows the item; anonymous callers never see a private user's media", async () => {
    const owner = await author();
    const reader = await createUser();
    const [imageid, videoid, documentid] = [
      await uploadImage(owner.token, 40, 30),
      await video(owner.token),
      await pdf(owner.token),
    ];
    const paths = [`/media/images/${imageid}`, `/media/videos/${videoid}`, `/media/documents/${documentid}`];
    for (const path of paths) {
      expect((await api('GET', path, { token: reader.token })).status, path).toBe(403);
      // Anonymous: 403 on an open site, 401 where the site is private; never the object.
      expect([401, 403]).toContain((await api('GET', path)).status);
    }
    const guide = await createGuide(owner.token, { image: imageid, documents: [documentid] });
    await addStep(owner.token, guide.guideid, { media: { type: 'object', data: videoid } });
    // Still a draft: its readers are its editors only.
    for (const path of paths) expect((await api('GET', path, { token: reader.token })).status, path).toBe(403);
    const current = await api('GET', `/guides/${guide.guideid}`, { token: owner.token });
    await publish(owner.token, current.body);
    for (const path of paths) expect((await api('GET', path, { token: reader.token })).status, path).toBe(200);
  });
});

describe('guides and steps read back full media objects', () => {
  it('shows step video as a Video with encodings and a poster, guide documents as Document objects, step embeds with html; all in the guide and the step views', async () => {
    const writer = await author();
    const [videoid, documentid, embedded] = [
      await video(writer.token),
      await pdf(writer.token),
      await embed(writer.token),
    ];
    const guide = await createGuide(writer.token, { documents: [documentid] });
    expect(guide.documents).toEqual([
      expect.objectContaining({
        documentid,
        filename: 'torque table.pdf',
        document_extension: 'pdf',
        url: expect.any(String),
        download_url: expect.any(String),
      }),
    ]);
    await addStep(writer.token, guide.guideid, { media: { type: 'object', data: videoid } });
    await addStep(writer.token, guide.guideid, { media: { type: 'embed', data: embedded.embedid } });

    const read = await api('GET', `/guides/${guide.guideid}`, { token: writer.token });
    const [videoStep, embedStep] = ownSteps(read.body);
    expect(videoStep.media.type).toBe('video');
    expect(videoStep.media.data).toMatchObject({
      videoid,
      filename: 'clip.mp4',
      image: { image: { id: videoid, original: expect.any(String) } },
      meta: { state: 'finished' },
    });
    expect(videoStep.media.data.encodings).toEqual([
      expect.objectContaining({ url: expect.any(String), mime: 'video/mp4', format: 'mp4' }),
    ]);
    expect((await fetch(videoStep.media.data.encodings[0].url)).status).toBe(200);
    expect(embedStep.media).toEqual({ type: 'embed', data: embedded });
    const [document] = read.body.documents;
    expect(document).toMatchObject({
      documentid,
      guid: expect.any(String),
      date: expect.any(Number),
      size: 24,
      title: 'torque table',
    });
    expect(await (await fetch(siteUrl() + document.url)).text()).toContain('%PDF-1.4');

    // The step view (PATCH answers the step) builds the same objects; media already there passes unchecked.
    const step = await api('PATCH', `/guides/${guide.guideid}/steps/${videoStep.stepid}`, {
      token: writer.token,
      query: { revisionid: videoStep.revisionid },
      body: { title: 'Watch first', media: { type: 'object', data: videoid } },
    });
    expect(step.status).toBe(200);
    expect(step.body.media.data).toMatchObject({
      videoid,
      encodings: [{ url: expect.any(String) }],
      image: { image: { id: videoid } },
    });

    // A deleted document reads as its id alone rather than failing the guide.
    expect((await api('DELETE', `/user/media/Document/${documentid}`, { token: writer.token })).status).toBe(204);
    expect((await api('GET', `/guides/${guide.guideid}`, { token: writer.token })).body.documents).toEqual([
      { documentid },
    ]);
  });

  it("refuses video, embed and document ids that are not ready items of the caller (422), and lets an Admin use anyone's", async () => {
    const writer = await author();
    const stranger = await createUser();
    const [foreignVideo, foreignDocument, foreignEmbed, ownImage] = [
      await video(stranger.token),
      await pdf(stranger.token),
      await embed(stranger.token),
      await uploadImage(writer.token, 30, 30),
    ];
    const pending = await api('POST', '/user/media/uploads/presigned', {
      token: writer.token,
      body: { filename: 'later.mp4', content_type: 'video/mp4' },
    });
    const guide = await createGuide(writer.token);
    const stepWith = (media: unknown) =>
      api('POST', `/guides/${guide.guideid}/steps`, {
        token: writer.token,
        body: { orderby: 1, lines: [{ text: 'x', bullet: 'black', level: 0 }], media },
      });
    for (const [media, code] of [
      [{ type: 'object', data: foreignVideo }, 'not_found'],
      [{ type: 'video', data: ownImage }, 'not_found'],
      [{ type: 'object', data: pending.body.id }, 'not_ready'],
      [{ type: 'embed', data: foreignEmbed.embedid }, 'not_found'],
      [{ type: 'embed', data: 999_999_999 }, 'not_found'],
    ] as const) {
      const response = await stepWith(media);
      expect(response.status, JSON.stringify(media)).toBe(422);
      expect(response.body.errors[0]).toMatchObject({ field: 'media', code });
    }
    const documents = await api('PATCH', `/guides/${guide.guideid}`, {
      token: writer.token,
      query: { revisionid: guide.revisionid },
      body: { documents: [foreignDocument] },
    });
    expect(documents.status).toBe(422);
    expect(documents.body.errors[0]).toMatchObject({ field: 'documents', code: 'not_found' });
    const twice = await api('PATCH', `/guides/${guide.guideid}`, {
      token: writer.token,
      query: { revisionid: guide.revisionid },
      body: { documents: [ownImage, ownImage] },
    });
    expect(twice.status).toBe(422);
    expect((await api('GET', `/guides/${guide.guideid}`, { token: writer.token })).body.steps).toEqual([]);

    const admin = await loginAdmin();
    const byAdmin = await api('PATCH', `/guides/${guide.guideid}`, {
      token: admin,
      query: { revisionid: guide.revisionid },
      body: { documents: [foreignDocument] },
    });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.documents[0]).toMatchObject({ documentid: foreignDocument, url: expect.any(String) });
  });
});
