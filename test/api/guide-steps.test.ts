import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin } from '../support/api.ts';
import { addStep, createGuide, LINES, ownSteps, uploadImage, uploadReadyFile } from './guide-fixtures.ts';

const author = () => createUser({ privileges: ['Author'] });

async function guideWithSteps(token: string, titles: string[]) {
  let guide = await createGuide(token);
  for (const title of titles) guide = await addStep(token, guide.guideid, { title });
  return guide;
}

const titles = (guide: { guideid: number; steps: unknown[] }) =>
  ownSteps(guide).map((step: { title: string }) => step.title);

describe('POST /guides/{guideid}/steps', () => {
  it('adds a step (201) and answers the whole guide with a new revisionid and rendered lines', async () => {
    const writer = await author();
    const [guide, first, second] = await Promise.all([
      createGuide(writer.token),
      uploadImage(writer.token),
      uploadImage(writer.token),
    ]);
    const response = await api('POST', `/guides/${guide.guideid}/steps`, {
      token: writer.token,
      body: {
        orderby: 1,
        title: 'Cool down',
        lines: [
          { text: "Wait '''five''' minutes.", bullet: 'black', level: 0 },
          { text: 'Really.', bullet_styleid: 2, level: 1 },
        ],
        media: { type: 'image', data: [first, second] },
      },
    });
    expect(response.status).toBe(201);
    expect(response.body.revisionid).toBeGreaterThan(guide.revisionid);
    const [step] = response.body.steps;
    expect(step).toMatchObject({
      guideid: guide.guideid,
      orderby: 1,
      title: 'Cool down',
      comments: [],
      comment_count: 0,
      media: {
        type: 'image',
        data: [
          { id: first, guid: expect.any(String) },
          { id: second, guid: expect.any(String) },
        ],
      },
    });
    expect(step.lines).toEqual([
      {
        lineid: expect.any(Number),
        bullet: 'black',
        level: 0,
        text_raw: "Wait '''five''' minutes.",
        text_rendered: 'Wait <strong>five</strong> minutes.',
      },
      { lineid: expect.any(Number), bullet: 'red', level: 1, text_raw: 'Really.', text_rendered: 'Really.' },
    ]);
    expect(step.lines[0].lineid).not.toBe(step.lines[1].lineid);
    expect(Number.isInteger(step.revisionid)).toBe(true);
  });

  it('inserts at orderby and moves later steps down', async () => {
    const writer = await author();
    const guide = await guideWithSteps(writer.token, ['A', 'C']);
    const inserted = await addStep(writer.token, guide.guideid, { orderby: 2, title: 'B' });
    expect(titles(inserted)).toEqual(['A', 'B', 'C']);
    expect(ownSteps(inserted).map((step: { orderby?: number }) => step.orderby)).toEqual([1, 2, 3]);
    const first = await addStep(writer.token, guide.guideid, { orderby: 1, title: 'Start' });
    expect(titles(first)).toEqual(['Start', 'A', 'B', 'C']);
  });

  it('validates lines: first level 0 ("Invalid line indentation"), bullets, 1–8 lines, orderby range', async () => {
    const writer = await author();
    const guide = await createGuide(writer.token);
    const post = (body: Record<string, unknown>) =>
      api('POST', `/guides/${guide.guideid}/steps`, {
        token: writer.token,
        body: { orderby: 1, lines: LINES, ...body },
      });
    const indented = await post({ lines: [{ text: 'x', bullet: 'black', level: 1 }] });
    expect(indented.status).toBe(422);
    expect(indented.body.message).toBe('Invalid line indentation');
    expect(
      (
        await post({
          lines: [
            { text: 'x', bullet: 'black', level: 0 },
            { text: 'y', bullet: 'black', level: 2 },
          ],
        })
      ).body.message,
    ).toBe('Invalid line indentation');
    expect((await post({ lines: [{ text: 'x', level: 0 }] })).status).toBe(422);
    expect((await post({ lines: [{ text: 'x', bullet: 'plaid', level: 0 }] })).status).toBe(422);
    expect((await post({ lines: [{ text_raw: 'x', bullet: 'black', level: 0 }] })).status).toBe(422);
    expect(
      (await post({ lines: Array.from({ length: 9 }, () => ({ text: 'x', bullet: 'black', level: 0 })) })).status,
    ).toBe(422);
    expect((await post({ lines: [] })).status).toBe(422);
    const onlyMedia = await api('POST', `/guides/${guide.guideid}/steps`, {
      token: writer.token,
      body: { media: { type: 'image', data: [1] } },
    });
    expect(onlyMedia.status).toBe(422);
    expect(onlyMedia.body.errors.map((error: { field: string }) => error.field)).toEqual(['orderby', 'lines']);
    const outOfRange = await post({ orderby: 3 });
    expect(outOfRange.status).toBe(422);
    expect(outOfRange.body.errors[0].field).toBe('orderby');
    const after = await api('GET', `/guides/${guide.guideid}`, { token: writer.token });
    expect(after.body.steps).toEqual([]);
    expect(after.body.revisionid).toBe(guide.revisionid);
  });

  it('checks the guide revisionid when one is given (409 with the guide), and access (403, 404)', async () => {
    const writer = await author();
    const guide = await createGuide(writer.token);
    const withStep = await addStep(writer.token, guide.guideid);
    const stale = await api('POST', `/guides/${guide.guideid}/steps`, {
      token: writer.token,
      query: { revisionid: guide.revisionid },
      body: { orderby: 1, lines: LINES },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ guideid: guide.guideid, revisionid: withStep.revisionid });
    const current = await api('POST', `/guides/${guide.guideid}/steps`, {
      token: writer.token,
      query: { revisionid: withStep.revisionid },
      body: { orderby: 2, lines: LINES },
    });
    expect(current.status).toBe(201);
    const other = await author();
    expect(
      (await api('POST', `/guides/${guide.guideid}/steps`, { token: other.token, body: { orderby: 1, lines: LINES } }))
        .status,
    ).toBe(403);
    expect(
      (await api('POST', '/guides/999999999/steps', { token: writer.token, body: { orderby: 1, lines: LINES } }))
        .status,
    ).toBe(404);
  });

  it('lands every one of 20 concurrent adds without a revisionid (201 each, 20 more steps); a stale revisionid still gets 409', async () => {
    const writer = await author();
    const guide = await guideWithSteps(writer.token, ['Existing']);
    const names = Array.from({ length: 20 }, (_, index) => `Concurrent ${index}`);
    const responses = await Promise.all(
      names.map((title) =>
        api('POST', `/guides/${guide.guideid}/steps`, {
          token: writer.token,
          body: { orderby: 1, title, lines: LINES },
        }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(names.map(() => 201));
    const after = await api('GET', `/guides/${guide.guideid}`, { token: writer.token });
    expect(ownSteps(after.body)).toHaveLength(21);
    expect(new Set(titles(after.body))).toEqual(new Set(['Existing', ...names]));
    // Each add was its own revision: 21 distinct step revisions, the guide past all of them.
    expect(new Set(responses.map((response) => response.body.revisionid)).size).toBe(20);

    const stale = await api('POST', `/guides/${guide.guideid}/steps`, {
      token: writer.token,
      query: { revisionid: guide.revisionid },
      body: { orderby: 1, title: 'Late', lines: LINES },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ guideid: guide.guideid, revisionid: after.body.revisionid });
    expect(ownSteps(stale.body)).toHaveLength(21);
  });
});

describe('PATCH /guides/{guideid}/steps/{stepid}', () => {
  it('edits the step named at its revision, answers the step, and moves both revisionids on', async () => {
    const writer = await author();
    const guide = await guideWithSteps(writer.token, ['One', 'Two']);
    const step: { stepid: number; revisionid: number; lines: Array<{ lineid: number }> } = ownSteps(guide)[1];
    const keptLine = step.lines[0].lineid;
    const response = await api('PATCH', `/guides/${guide.guideid}/steps/${step.stepid}`, {
      token: writer.token,
      query: { revisionid: step.revisionid },
      body: {
        title: 'Second',
        lines: [
          { lineid: keptLine, text: 'Changed', bullet: 'green', level: 0 },
          { text: 'New line', bullet: 'black', level: 1 },
        ],
      },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ guideid: guide.guideid, stepid: step.stepid, orderby: 2, title: 'Second' });
    expect(response.body.revisionid).toBeGreaterThan(step.revisionid);
    expect(response.body.lines[0]).toMatchObject({ lineid: keptLine, text_raw: 'Changed', bullet: 'green' });
    expect(response.body.lines[1].lineid).not.toBe(keptLine);
    const after = await api('GET', `/guides/${guide.guideid}`, { token: writer.token });
    expect(after.body.revisionid).toBeGreaterThan(guide.revisionid);
    expect(after.body.steps[1]).toEqual(response.body);
    // A video is written as `object` and read back as `video` (the real service's asymmetry).
    const videoid = await uploadReadyFile(writer.token, 'clip.mp4', Buffer.alloc(64, 1));
    const video = await api('PATCH', `/guides/${guide.guideid}/steps/${step.stepid}`, {
      token: writer.token,
      query: { revisionid: response.body.revisionid },
      body: { media: { type: 'object', data: videoid } },
    });
    expect(video.body).toMatchObject({ title: 'Second', media: { type: 'video', data: { videoid } } });
    expect(video.body.lines).toEqual(response.body.lines);
  });

  it("answers 409 with the current step for a stale step revisionid, 422 without one, 404 for another guide's step", async () => {
    const writer = await author();
    const guide = await guideWithSteps(writer.token, ['One']);
    const step = guide.steps[0];
    const first = await api('PATCH', `/guides/${guide.guideid}/steps/${step.stepid}`, {
      token: writer.token,
      query: { revisionid: step.revisionid },
      body: { title: 'First edit' },
    });
    expect(first.status).toBe(200);
    const stale = await api('PATCH', `/guides/${guide.guideid}/steps/${step.stepid}`, {
      token: writer.token,
      query: { revisionid: step.revisionid },
      body: { title: 'Lost' },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      stepid: step.stepid,
      title: 'First edit',
      revisionid: first.body.revisionid,
      orderby: 1,
    });
    // A guide revisionid is not the step's.
    const guideRevision = await api('PATCH', `/guides/${guide.guideid}/steps/${step.stepid}`, {
      token: writer.token,
      query: { revisionid: guide.revisionid },
      body: { title: 'x' },
    });
    expect(guideRevision.status).toBe(409);
    expect(
      (
        await api('PATCH', `/guides/${guide.guideid}/steps/${step.stepid}`, {
          token: writer.token,
          body: { title: 'x' },
        })
      ).status,
    ).toBe(422);
    const other = await guideWithSteps(writer.token, ['Elsewhere']);
    expect(
      (
        await api('PATCH', `/guides/${other.guideid}/steps/${step.stepid}`, {
          token: writer.token,
          query: { revisionid: first.body.revisionid },
          body: { title: 'x' },
        })
      ).status,
    ).toBe(404);
    const bad = await api('PATCH', `/guides/${guide.guideid}/steps/${step.stepid}`, {
      token: writer.token,
      query: { revisionid: first.body.revisionid },
      body: { lines: [{ text: 'x', bullet: 'black', level: 1 }] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('Invalid line indentation');
  });

  it('of concurrent edits of one step at one revision exactly one wins', async () => {
    const writer = await author();
    const guide = await guideWithSteps(writer.token, ['One']);
    const step = guide.steps[0];
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        api('PATCH', `/guides/${guide.guideid}/steps/${step.stepid}`, {
          token: writer.token,
          query: { revisionid: step.revisionid },
          body: { title: `edit ${index}` },
        }),
      ),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    expect(responses.filter((response) => response.status === 409)).toHaveLength(7);
    const winner = responses.find((response) => response.status === 200)!.body;
    const now = await api('GET', `/guides/${guide.guideid}`, { token: writer.token });
    expect(now.body.steps[0]).toMatchObject({ title: winner.title, revisionid: winner.revisionid });
  });

  it('keeps both edits when two different steps change at once (neither is lost)', async () => {
    const writer = await author();
    const guide = await guideWithSteps(writer.token, ['One', 'Two']);
    const [a, b] = guide.steps;
    const [ra, rb] = await Promise.all([
      api('PATCH', `/guides/${guide.guideid}/steps/${a.stepid}`, {
        token: writer.token,
        query: { revisionid: a.revisionid },
        body: { title: 'A edited' },
      }),
      api('PATCH', `/guides/${guide.guideid}/steps/${b.stepid}`, {
        token: writer.token,
        query: { revisionid: b.revisionid },
        body: { title: 'B edited' },
      }),
    ]);
    expect([ra.status, rb.status]).toEqual([200, 200]);
    const now = await api('GET', `/guides/${guide.guideid}`, { token: writer.token });
    expect(titles(now.body)).toEqual(['A edited', 'B edited']);
    expect(now.body.steps.map((step: { revisionid: number }) => step.revisionid)).toEqual([
      ra.body.revisionid,
      rb.body.revisionid,
    ]);
  });
});

describe('DELETE /guides/{guideid}/steps/{stepid}', () => {
  it('deletes the step named at its revision and answers the whole guide (200)', async () => {
    const writer = await author();
    const guide = await guideWithSteps(writer.token, ['One', 'Two', 'Three']);
    const middle = guide.steps[1];
    expect(
      (await api('DELETE', `/guides/${guide.guideid}/steps/${middle.stepid}`, { token: writer.token })).status,
    ).toBe(422);
    const stale = await api('DELETE', `/guides/${guide.guideid}/steps/${middle.stepid}`, {
      token: writer.token,
      query: { revisionid: middle.revisionid + 100000 },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ stepid: middle.stepid, revisionid: middle.revisionid });
    const deleted = await api('DELETE', `/guides/${guide.guideid}/steps/${middle.stepid}`, {
      token: writer.token,
      query: { revisionid: middle.revisionid },
    });
    expect(deleted.status).toBe(200);
    expect(titles(deleted.body)).toEqual(['One', 'Three']);
    expect(deleted.body.steps.map((step: { orderby: number }) => step.orderby)).toEqual([1, 2]);
    expect(deleted.body.revisionid).toBeGreaterThan(guide.revisionid);
    expect(
      (
        await api('DELETE', `/guides/${guide.guideid}/steps/${middle.stepid}`, {
          token: writer.token,
          query: { revisionid: middle.revisionid },
        })
      ).status,
    ).toBe(404);
  });
});

describe('PUT /guides/{guideid}/steporder', () => {
  it('reorders the steps in one write (body or query) and answers the whole guide', async () => {
    const writer = await author();
    const guide = await guideWithSteps(writer.token, ['A', 'B', 'C']);
    const [a, b, c] = guide.steps.map((step: { stepid: number }) => step.stepid);
    const reordered = await api('PUT', `/guides/${guide.guideid}/steporder`, {
      token: writer.token,
      query: { revisionid: guide.revisionid },
      body: { stepids: [c, a, b] },
    });
    expect(reordered.status).toBe(200);
    expect(titles(reordered.body)).toEqual(['C', 'A', 'B']);
    expect(reordered.body.steps.map((step: { orderby: number }) => step.orderby)).toEqual([1, 2, 3]);
    expect(reordered.body.revisionid).toBeGreaterThan(guide.revisionid);
    const viaQuery = await api('PUT', `/guides/${guide.guideid}/steporder`, {
      token: writer.token,
      query: { revisionid: reordered.body.revisionid, stepids: `${b},${c},${a}` },
    });
    expect(viaQuery.status).toBe(200);
    expect(titles(viaQuery.body)).toEqual(['B', 'C', 'A']);
  });

  it("refuses anything but a permutation of the guide's steps (422) and changes nothing", async () => {
    const writer = await author();
    const guide = await guideWithSteps(writer.token, ['A', 'B', 'C']);
    const [a, b, c] = guide.steps.map((step: { stepid: number }) => step.stepid);
    const put = (stepids: number[]) =>
      api('PUT', `/guides/${guide.guideid}/steporder`, {
        token: writer.token,
        query: { revisionid: guide.revisionid },
        body: { stepids },
      });
    for (const stepids of [[a, b], [a, b, b], [a, b, c, 999999], [a, b, 999999], []]) {
      const response = await put(stepids);
      expect(response.status, JSON.stringify(stepids)).toBe(422);
      expect(response.body.errors[0].field).toBe('stepids');
    }
    expect(
      (
        await api('PUT', `/guides/${guide.guideid}/steporder`, {
          token: writer.token,
          query: { revisionid: guide.revisionid },
          body: {},
        })
      ).status,
    ).toBe(422);
    expect(
      (await api('PUT', `/guides/${guide.guideid}/steporder`, { token: writer.token, body: { stepids: [c, b, a] } }))
        .status,
    ).toBe(422);
    const now = await api('GET', `/guides/${guide.guideid}`, { token: writer.token });
    expect(titles(now.body)).toEqual(['A', 'B', 'C']);
    expect(now.body.revisionid).toBe(guide.revisionid);
  });

  it('is atomic under concurrency: of competing orders at one revision one applies whole, the others 409', async () => {
    const writer = await author();
    const guide = await guideWithSteps(writer.token, ['A', 'B', 'C', 'D']);
    const ids = guide.steps.map((step: { stepid: number }) => step.stepid);
    const orders = [
      [...ids].reverse(),
      [ids[1], ids[0], ids[3], ids[2]],
      [ids[2], ids[3], ids[0], ids[1]],
      [ids[3], ids[0], ids[1], ids[2]],
    ];
    const responses = await Promise.all(
      orders.map((stepids) =>
        api('PUT', `/guides/${guide.guideid}/steporder`, {
          token: writer.token,
          query: { revisionid: guide.revisionid },
          body: { stepids },
        }),
      ),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    expect(responses.filter((response) => response.status === 409)).toHaveLength(3);
    const winner = orders[responses.findIndex((response) => response.status === 200)];
    const now = await api('GET', `/guides/${guide.guideid}`, { token: writer.token });
    expect(now.body.steps.map((step: { stepid: number }) => step.stepid)).toEqual(winner);
  });
});

describe('hostile text', () => {
  it('renders inert in step lines, the line preview and the introduction', async () => {
    const writer = await author();
    const hostile =
      '<script>alert(1)</script><img src=x onerror=alert(2)> [javascript:alert(3) click] "><svg onload=alert(4)>';
    const guide = await createGuide(writer.token, { introduction: hostile });
    expect(guide.introduction_rendered).not.toMatch(/<script|<img|<svg|href="javascript/i);
    const withStep = await addStep(writer.token, guide.guideid, {
      lines: [{ text: hostile, bullet: 'black', level: 0 }],
    });
    const rendered = withStep.steps[0].lines[0].text_rendered as string;
    expect(rendered).not.toMatch(/<script|<img|<svg|href="javascript/i);
    expect(rendered).toContain('&lt;script&gt;');
    expect(withStep.steps[0].lines[0].text_raw).toBe(hostile);
    const preview = await api('POST', '/guides/steps/lines/preview', {
      token: writer.token,
      body: { lines: [{ text: hostile, bullet: 'black', level: 0 }] },
    });
    expect(preview.status).toBe(200);
    expect(preview.body.lines[0].text_rendered).toBe(rendered);
  });
});

describe('POST /guides/steps/lines/preview', () => {
  it('renders lines without saving anything, with the same validation as steps', async () => {
    const user = await createUser();
    const preview = await api('POST', '/guides/steps/lines/preview', {
      token: user.token,
      body: {
        lines: [
          { text: "'''Bold''' and ''italic''", bullet: 'black', level: 0 },
          { text: 'see [[Guide:Replace the nozzle]]', bullet_styleid: 9, level: 1 },
        ],
      },
    });
    expect(preview.status).toBe(200);
    expect(preview.body.lines[0]).toEqual({
      lineid: null,
      bullet: 'black',
      level: 0,
      text_raw: "'''Bold''' and ''italic''",
      text_rendered: '<strong>Bold</strong> and <em>italic</em>',
    });
    expect(preview.body.lines[1]).toMatchObject({ bullet: 'icon_note', level: 1 });
    expect(preview.body.lines[1].text_rendered).toContain('<a href=');
    const bad = await api('POST', '/guides/steps/lines/preview', {
      token: user.token,
      body: { lines: [{ text: 'x', bullet: 'black', level: 2 }] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('Invalid line indentation');
    expect((await api('POST', '/guides/steps/lines/preview', { body: { lines: LINES } })).status).toBe(401);
  });
});

it('steps are found by stepid alone through their guide (the admin reads any step)', async () => {
  const admin = await loginAdmin();
  const guide = await guideWithSteps(admin, ['Only']);
  const read = await api('GET', `/guides/${guide.guideid}`, { token: admin });
  expect(read.body.steps[0].stepid).toBe(guide.steps[0].stepid);
});
