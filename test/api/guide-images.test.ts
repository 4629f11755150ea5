/**
 * Guide and step images over HTTP: written as media ids, read as Image objects (wire §2.1) whose
 * stable /igi/ URLs fetch the bytes (decision 197); ownership, readiness and deletion.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin } from '../support/api.ts';
import { addStep, createGuide, ownSteps, publish, uploadImage } from './guide-fixtures.ts';

const author = () => createUser({ privileges: ['Author'] });

/** A GuideImage item that exists but is not processed: a browser upload signed, never sent. */
async function unprocessedImage(token: string): Promise<number> {
  const response = await api('POST', '/user/media/uploads/presigned', {
    token,
    body: { filename: 'later.png', content_type: 'image/png' },
  });
  expect(response.status).toBe(201);
  return response.body.id;
}

const patchGuide = (token: string, guide: { guideid: number; revisionid: number }, body: Record<string, unknown>) =>
  api('PATCH', `/guides/${guide.guideid}`, { token, query: { revisionid: guide.revisionid }, body });

describe('guide and step images', () => {
  it('reads a guide image and step images back as Image objects whose URLs fetch the bytes; lists show the guide image', async () => {
    const writer = await author();
    const [cover, first, second] = await Promise.all([
      uploadImage(writer.token, 800, 600),
      uploadImage(writer.token),
      uploadImage(writer.token),
    ]);
    const created = await createGuide(writer.token, { image: cover });
    expect(created.image).toMatchObject({
      id: cover,
      guid: expect.any(String),
      standard: expect.any(String),
      original: expect.any(String),
    });
    await addStep(writer.token, created.guideid, { media: { type: 'image', data: [second, first] } });
    const current = await api('GET', `/guides/${created.guideid}`, { token: writer.token });
    await publish(writer.token, current.body);

    const reader = await createUser();
    const guide = await api('GET', `/guides/${created.guideid}`, { token: reader.token });
    expect(guide.status).toBe(200);
    expect(guide.body.image).toMatchObject({
      id: cover,
      standard: expect.stringContaining('http'),
      original: expect.stringContaining('http'),
    });
    const [step] = ownSteps(guide.body);
    expect(step.media.type).toBe('image');
    expect(step.media.data.map((image: { id: number }) => image.id)).toEqual([second, first]);
    for (const image of step.media.data)
      expect(Object.keys(image)).toEqual(expect.arrayContaining(['id', 'guid', 'thumbnail', 'original']));

    const standard = await fetch(guide.body.image.standard);
    expect(standard.status).toBe(200);
    expect(standard.headers.get('content-type')).toBe('image/jpeg');
    const original = await fetch(step.media.data[0].original);
    expect(original.status).toBe(200);
    expect(original.headers.get('content-type')).toBe('image/png');
    expect((await original.arrayBuffer()).byteLength).toBeGreaterThan(0);

    const listed = await api('GET', '/guides', { token: reader.token, query: { guideids: String(created.guideid) } });
    expect(listed.body).toHaveLength(1);
    expect(listed.body[0].image).toMatchObject({
      id: cover,
      guid: guide.body.image.guid,
      original: expect.any(String),
    });
    const authored = await api('GET', '/user/guides', { token: writer.token });
    expect(
      authored.body.find((summary: { guideid: number }) => summary.guideid === created.guideid).image,
    ).toMatchObject({ id: cover, original: expect.any(String) });
  });

  it("sets and clears the guide image with PATCH; refuses another user's image, an unknown id and an unprocessed one (422 field image)", async () => {
    const writer = await author();
    const stranger = await createUser();
    const [own, strangers, pending, guide] = await Promise.all([
      uploadImage(writer.token),
      uploadImage(stranger.token),
      unprocessedImage(writer.token),
      createGuide(writer.token),
    ]);
    expect(guide.image).toBeNull();

    for (const [image, code] of [
      [strangers, 'not_found'],
      [999_999_999, 'not_found'],
      [pending, 'not_ready'],
    ] as const) {
      const refused = await patchGuide(writer.token, guide, { image });
      expect(refused.status).toBe(422);
      expect(refused.body.errors[0]).toMatchObject({ field: 'image', code });
    }
    const refusedCreate = await api('POST', '/guides', {
      token: writer.token,
      body: { category: guide.category, type: 'how-to', image: strangers },
    });
    expect(refusedCreate.status).toBe(422);
    expect(refusedCreate.body.errors[0].field).toBe('image');

    const set = await patchGuide(writer.token, guide, { image: own });
    expect(set.status).toBe(200);
    expect(set.body.image).toMatchObject({ id: own, original: expect.any(String) });
    const cleared = await patchGuide(writer.token, set.body, { image: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.image).toBeNull();
    // Admins may use any library's image.
    const byAdmin = await patchGuide(await loginAdmin(), cleared.body, { image: strangers });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.image.id).toBe(strangers);
  });

  it('checks step images (422 field media); a co-editor may send back images already on the step', async () => {
    const writer = await author();
    const coEditor = await author();
    const [own, foreign, pending, guide] = await Promise.all([
      uploadImage(writer.token),
      uploadImage(coEditor.token),
      unprocessedImage(writer.token),
      createGuide(writer.token),
    ]);
    const post = (data: number[]) =>
      api('POST', `/guides/${guide.guideid}/steps`, {
        token: writer.token,
        body: { orderby: 1, lines: [{ text: 'x', bullet: 'black', level: 0 }], media: { type: 'image', data } },
      });
    for (const [data, code] of [
      [[own, foreign], 'not_found'],
      [[424_242_424], 'not_found'],
      [[pending], 'not_ready'],
    ] as const) {
      const refused = await post([...data]);
      expect(refused.status).toBe(422);
      expect(refused.body.errors[0]).toMatchObject({ field: 'media', code });
    }
    // A video id is not an image.
    const video = await api('POST', '/user/media/uploads', {
      token: writer.token,
      query: { file: 'clip.mp4' },
      rawBody: Buffer.alloc(32, 1),
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect((await post([video.body.id])).body.errors[0]).toMatchObject({ field: 'media', code: 'not_found' });

    const added = await post([own]);
    expect(added.status).toBe(201);
    const step = added.body.steps[0];
    expect(
      (await api('PUT', `/guides/${guide.guideid}/users/${coEditor.userid}`, { token: writer.token })).status,
    ).toBe(200);
    const patch = (token: string, revisionid: number, data: number[]) =>
      api('PATCH', `/guides/${guide.guideid}/steps/${step.stepid}`, {
        token,
        query: { revisionid },
        body: { media: { type: 'image', data } },
      });
    const resent = await patch(coEditor.token, step.revisionid, [own, foreign]);
    expect(resent.status).toBe(200);
    expect(
      resent.body.media.data.map((image: { id: number; original: string }) => [image.id, typeof image.original]),
    ).toEqual([
      [own, 'string'],
      [foreign, 'string'],
    ]);
    const refused = await patch(coEditor.token, resent.body.revisionid, [own, pending]);
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toMatchObject({ field: 'media', code: 'not_found' });
  });

  it('shows an image deleted after it was attached as {id} alone', async () => {
    const writer = await author();
    const [image, kept] = await Promise.all([uploadImage(writer.token), uploadImage(writer.token)]);
    const guide = await createGuide(writer.token, { image });
    await addStep(writer.token, guide.guideid, { media: { type: 'image', data: [image, kept] } });
    expect((await api('DELETE', `/user/media/GuideImage/${image}`, { token: writer.token })).status).toBe(204);
    const read = await api('GET', `/guides/${guide.guideid}`, { token: writer.token });
    expect(read.body.image).toEqual({ id: image });
    expect(ownSteps(read.body)[0].media.data[0]).toEqual({ id: image });
    expect(ownSteps(read.body)[0].media.data[1]).toMatchObject({ id: kept, original: expect.any(String) });
  });
});
