/**
 * Videos and documents at stable site paths (decision 312, issue 39 item 6), over HTTP: the
 * migration crawler sends its `Authorization: api …` header to every URL it downloads, so a video
 * encoding's `url`, a document's `download_url` and its `url` (`/Document/…`, a redirect on the same
 * site) must answer the bytes with that header, not a presigned storage URL that refuses a second
 * authentication. Ranges (206, If-Range, 416), If-None-Match (304), the types and a document's
 * attachment under a safe name; guids that name no such file are 404.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, site, siteUrl, type TestUser } from '../support/api.ts';
import { uploadImage, uploadReadyFile } from './guide-fixtures.ts';

const VIDEO = Buffer.from(Array.from({ length: 300 }, (_, index) => index % 251));
const DOCUMENT = Buffer.from('%PDF-1.4\n% torque table of the café\n');

let user: TestUser;
let video: { guid: string; url: string };
let document: { guid: string; url: string; download_url: string };

/** A fetch as the crawler makes it: its API token on every URL, redirects followed. */
function crawl(url: string, headers: Record<string, string> = {}) {
  return fetch(url, { headers: { authorization: `api ${user.token}`, ...headers } });
}

beforeAll(async () => {
  user = await createUser();
  const videoid = await uploadReadyFile(user.token, 'clip of the pump.mp4', VIDEO);
  const documentid = await uploadReadyFile(user.token, 'Torque "table" é.pdf', DOCUMENT);
  const videoBody = (await api('GET', `/media/videos/${videoid}`, { token: user.token })).body;
  video = { guid: videoBody.guid, url: videoBody.encodings[0].url };
  document = (await api('GET', `/media/documents/${documentid}`, { token: user.token })).body;
});

describe('a video at /igi/<guid>/<name>', () => {
  it('is named by a stable site path and answers its bytes to a client sending its Authorization', async () => {
    expect(video.url).toBe(`${siteUrl()}/igi/${video.guid}/clip_of_the_pump.mp4`);
    const whole = await crawl(video.url);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(VIDEO)).toBe(true);
    expect(whole.headers.get('content-type')).toBe('video/mp4');
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.headers.get('content-disposition')).toMatch(/^inline; filename="clip_of_the_pump.mp4"/);
    expect(whole.headers.get('cache-control')).toMatch(/^public, max-age=\d+/);
    expect(whole.headers.get('etag')).toMatch(/^".+"$/);
    // Without any token too: the guid is the capability.
    expect((await fetch(video.url)).status).toBe(200);
  });

  it('answers ranges: 206 with Content-Range, If-Range by ETag, 416 past the end, 304 for a held copy', async () => {
    const etag = (await fetch(video.url)).headers.get('etag')!;
    const part = await crawl(video.url, { range: 'bytes=10-19' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${VIDEO.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(VIDEO.subarray(10, 20))).toBe(true);

    const tail = await fetch(video.url, { headers: { range: 'bytes=-5' } });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(VIDEO.subarray(-5))).toBe(true);

    const resumed = await fetch(video.url, { headers: { range: 'bytes=290-', 'if-range': etag } });
    expect(resumed.status).toBe(206);
    expect(resumed.headers.get('content-range')).toBe(`bytes 290-299/${VIDEO.length}`);
    // The client holds part of another file: the whole one.
    const changed = await fetch(video.url, { headers: { range: 'bytes=290-', 'if-range': '"another"' } });
    expect(changed.status).toBe(200);
    expect((await changed.arrayBuffer()).byteLength).toBe(VIDEO.length);

    const past = await fetch(video.url, { headers: { range: 'bytes=5000-' } });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${VIDEO.length}`);
    expect((await fetch(video.url, { headers: { 'if-none-match': etag } })).status).toBe(304);
  });
});

describe('a document at /igi/<guid>/<name>', () => {
  it('answers download_url and the /Document/ url with the bytes, as an attachment under a safe name', async () => {
    expect(document.download_url).toBe(`${siteUrl()}/igi/${document.guid}/Torque_table_.pdf`);
    const download = await crawl(document.download_url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(DOCUMENT)).toBe(true);
    expect(download.headers.get('content-type')).toBe('application/pdf');
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
    expect(download.headers.get('content-disposition')).toBe(
      // The upload kept the name without its quotes (safeFilename).
      `attachment; filename="Torque_table_.pdf"; filename*=UTF-8''Torque%20table%20%C3%A9.pdf`,
    );
    // The Document's `url`: a site path; it redirects on the same site, the header goes along.
    const viaUrl = await crawl(siteUrl() + document.url);
    expect(viaUrl.status).toBe(200);
    expect(viaUrl.url).toBe(document.download_url);
    expect(Buffer.from(await viaUrl.arrayBuffer()).equals(DOCUMENT)).toBe(true);
  });

  it('is 404 for a guid that names no video or document', async () => {
    const imageid = await uploadImage(user.token, 20, 20);
    const image = (await api('GET', `/media/images/${imageid}`, { token: user.token })).body.image;
    expect((await site('GET', `/igi/${image.guid}/x.jpg`)).status).toBe(404);
    expect((await site('GET', `/igi/${'f'.repeat(32)}/x.pdf`)).status).toBe(404);
    expect((await site('GET', '/igi/not-a-guid!/x.pdf')).status).toBe(404);
  });
});
