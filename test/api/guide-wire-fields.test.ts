/**
 * The fields a live Dozuki site answers on guides, steps and guide summaries (issue 39 item 5),
 * each from the feature it reports: the current revision, the caller's work log, the step's first
 * image, the guide's periodic-review schedule (docs/wire-fidelity.md, "Guide fields").
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, uniqueSuffix } from '../support/api.ts';
import {
  addStep,
  createCategory,
  createGuide,
  ownSteps,
  publish,
  scheduleGuides,
  uploadImage,
} from './guide-fixtures.ts';
import { importQuiz } from './quiz-fixtures.ts';

const author = () => createUser({ privileges: ['Author'] });

describe('GET /guides/{guideid}: the real service’s guide fields', () => {
  it('answers guide_revisionid (following each edit), the work log of the guide, and null featured document', async () => {
    const writer = await author();
    const guide = await createGuide(writer.token, { introduction: "You need a '''hex key'''." });
    const first = await api('GET', `/guides/${guide.guideid}`, { token: writer.token });
    expect(first.status).toBe(200);
    expect(first.body.guide_revisionid).toBe(first.body.revisionid);
    expect(first.body).toMatchObject({
      featured_documentid: null,
      featured_document_embed_url: null,
      work_log_enabled: true,
    });
    // The introduction's wiki tree, as a wiki's contents_json (decision 313); null without one.
    expect(first.body.introduction_json).toMatchObject({ type: 'doc' });
    expect(JSON.stringify(first.body.introduction_json)).toContain('hex key');
    const plain = await createGuide(writer.token);
    expect((await api('GET', `/guides/${plain.guideid}`, { token: writer.token })).body.introduction_json).toBeNull();
    const workLogUrl = new URL(first.body.work_log_url);
    expect(workLogUrl.pathname).toBe('/api/2.0/work_log');
    expect(workLogUrl.searchParams.get('guideid')).toBe(String(guide.guideid));

    const edited = await api('PATCH', `/guides/${guide.guideid}`, {
      token: writer.token,
      query: { revisionid: first.body.revisionid },
      body: { summary: 'A new summary' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.revisionid).toBeGreaterThan(first.body.revisionid);
    expect(edited.body.guide_revisionid).toBe(edited.body.revisionid);

    // The work-log URL lists what the caller logs on this guide: an entry started shows there.
    const started = await api('POST', '/work_log', {
      token: writer.token,
      body: { guideid: guide.guideid, workorderid: `WO-${uniqueSuffix()}` },
    });
    expect(started.status).toBe(201);
    const listed = await api('GET', `${workLogUrl.pathname.replace('/api/2.0', '')}`, {
      token: writer.token,
      query: Object.fromEntries(workLogUrl.searchParams),
    });
    expect(listed.status).toBe(200);
    expect(listed.body.results.map((entry: { entryid: number }) => entry.entryid)).toContain(started.body.entryid);
  });
});

describe('steps: imageURL and time_estimate', () => {
  it("answers the first image's standard URL, and the empty string for a step without an image", async () => {
    const writer = await author();
    const guide = await createGuide(writer.token);
    const [first, second] = await Promise.all([uploadImage(writer.token), uploadImage(writer.token)]);
    await addStep(writer.token, guide.guideid, { media: { type: 'image', data: [first, second] } });
    await addStep(writer.token, guide.guideid);
    const read = await api('GET', `/guides/${guide.guideid}`, { token: writer.token });
    expect(read.status).toBe(200);
    const [withImages, bare] = ownSteps(read.body);
    expect(withImages.media.data.map((image: { id: number }) => image.id)).toEqual([first, second]);
    expect(withImages.imageURL).toBe(withImages.media.data[0].standard);
    expect(withImages.imageURL).toMatch(/\/igi\/[^/]+\.standard$/);
    expect(bare.imageURL).toBe('');
    expect(withImages.time_estimate).toBeNull();
    expect(bare.time_estimate).toBeNull();

    // The step answered by its own write carries the same field.
    const patched = await api('PATCH', `/guides/${guide.guideid}/steps/${bare.stepid}`, {
      token: writer.token,
      query: { revisionid: bare.revisionid },
      body: { media: { type: 'image', data: [second] } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.imageURL).toBe(patched.body.media.data[0].standard);
  });
});

describe('guide summaries: guide_revisionid, isArchived, tags, attachedQuiz, periodicReviewSchedule', () => {
  it("lists the guide's tags, alphabetical, as tagging and untagging leave them; guide edits keep them", async () => {
    const writer = await author();
    const cat = await createCategory();
    const guide = await publish(writer.token, await createGuide(writer.token, { category: cat }));
    const summaryOf = async () => {
      const page = await api('GET', `/categories/${encodeURIComponent(cat)}`, { token: writer.token });
      expect(page.status).toBe(200);
      return page.body.guides.find((summary: { guideid: number }) => summary.guideid === guide.guideid);
    };
    expect((await summaryOf()).tags).toEqual([]);
    for (const tag of ['zinc', 'brass', 'maintenance']) {
      const tagged = await api('PUT', `/guides/${guide.guideid}/tag`, { token: writer.token, body: { tag } });
      expect(tagged.status).toBe(200);
    }
    // Tagging twice changes nothing.
    expect(
      (await api('PUT', `/guides/${guide.guideid}/tag`, { token: writer.token, body: { tag: 'zinc' } })).status,
    ).toBe(200);
    expect((await summaryOf()).tags).toEqual(['brass', 'maintenance', 'zinc']);

    const current = await api('GET', `/guides/${guide.guideid}`, { token: writer.token });
    const edited = await api('PATCH', `/guides/${guide.guideid}`, {
      token: writer.token,
      query: { revisionid: current.body.revisionid },
      body: { summary: 'Edited after tagging' },
    });
    expect(edited.status).toBe(200);
    const removed = await api('DELETE', `/guides/${guide.guideid}/tag`, {
      token: writer.token,
      body: { tag: 'brass' },
    });
    expect(removed.status).toBe(204);
    const summary = await summaryOf();
    expect(summary.tags).toEqual(['maintenance', 'zinc']);
    const listed = await api('GET', `/guides/${guide.guideid}/tags`, { token: writer.token });
    expect(listed.body).toEqual(summary.tags);
  });

  it('lists the quiz attached to a guide, which stays through later edits and follows a re-attach', async () => {
    const admin = await loginAdmin();
    const writer = await author();
    const cat = await createCategory();
    const guide = await publish(writer.token, await createGuide(writer.token, { category: cat }));
    const summaryOf = async () => {
      const page = await api('GET', `/categories/${encodeURIComponent(cat)}`, { token: writer.token });
      expect(page.status).toBe(200);
      return page.body.guides.find((summary: { guideid: number }) => summary.guideid === guide.guideid);
    };
    expect((await summaryOf()).attachedQuiz).toBeNull();

    const [first, second] = [await importQuiz(), await importQuiz()];
    const attached = await api('POST', '/quizzes/attach/guide', {
      token: admin,
      query: { revisionid: guide.revisionid },
      body: { quizid: first.quizid, guideid: guide.guideid },
    });
    expect(attached.status).toBe(201);
    expect((await summaryOf()).attachedQuiz).toEqual({ quizid: first.quizid, quiz_revisionid: first.quiz_revisionid });

    const edited = await api('PATCH', `/guides/${guide.guideid}`, {
      token: writer.token,
      query: { revisionid: attached.body.revisionid },
      body: { summary: 'Edited after the quiz' },
    });
    expect(edited.status).toBe(200);
    const afterEdit = await summaryOf();
    expect(afterEdit.attachedQuiz).toEqual({ quizid: first.quizid, quiz_revisionid: first.quiz_revisionid });
    expect(afterEdit.guide_revisionid).toBe(edited.body.revisionid);

    const again = await api('POST', '/quizzes/attach/guide', {
      token: admin,
      query: { revisionid: edited.body.revisionid },
      body: { quizid: second.quizid, guideid: guide.guideid },
    });
    expect(again.status).toBe(201);
    expect((await summaryOf()).attachedQuiz).toEqual({
      quizid: second.quizid,
      quiz_revisionid: second.quiz_revisionid,
    });
  });

  it('lists each guide with its current revision and the review schedule it is in (null when none)', async () => {
    const admin = await loginAdmin();
    const writer = await author();
    const cat = await createCategory();
    const scheduled = await publish(writer.token, await createGuide(writer.token, { category: cat }));
    const plain = await publish(writer.token, await createGuide(writer.token, { category: cat }));
    const schedule = await scheduleGuides(admin, writer.userid, [scheduled.guideid]);

    const page = await api('GET', `/categories/${encodeURIComponent(cat)}`, { token: writer.token });
    expect(page.status).toBe(200);
    const byId = new Map(page.body.guides.map((summary: { guideid: number }) => [summary.guideid, summary]));
    expect(byId.get(scheduled.guideid)).toMatchObject({
      guide_revisionid: scheduled.revisionid,
      revisionid: scheduled.revisionid,
      isArchived: false,
      periodicReviewSchedule: { prsid: schedule.prsid, name: schedule.name },
    });
    expect(
      (byId.get(scheduled.guideid) as { periodicReviewSchedule: { prdid: number } }).periodicReviewSchedule.prdid,
    ).toBeGreaterThan(0);
    expect(byId.get(plain.guideid)).toMatchObject({
      guide_revisionid: plain.revisionid,
      isArchived: false,
      periodicReviewSchedule: null,
    });

    // Every list shows it the same: those reading the guides with their claims (guidesForList), the
    // marks, and the full guide's prerequisites (read with their claims).
    const shown = byId.get(scheduled.guideid) as { periodicReviewSchedule: unknown };
    const expected = [
      { guideid: plain.guideid, periodicReviewSchedule: null },
      { guideid: scheduled.guideid, periodicReviewSchedule: shown.periodicReviewSchedule },
    ].sort((a, b) => a.guideid - b.guideid);
    const schedulesIn = (summaries: Array<{ guideid: number; periodicReviewSchedule: unknown }>) =>
      summaries.map(({ guideid, periodicReviewSchedule }) => ({ guideid, periodicReviewSchedule }));
    const list = await api('GET', '/guides', {
      token: writer.token,
      query: { guideids: `${scheduled.guideid},${plain.guideid}` },
    });
    expect(list.status).toBe(200);
    expect(schedulesIn(list.body)).toEqual(expected);
    expect(list.body.find((summary: { guideid: number }) => summary.guideid === scheduled.guideid)).toMatchObject({
      guide_revisionid: scheduled.revisionid,
    });
    const authored = await api('GET', `/users/${writer.userid}/guides`, { token: admin });
    expect(authored.status).toBe(200);
    expect(schedulesIn(authored.body)).toEqual(expected);
    for (const guide of [scheduled, plain])
      expect((await api('PUT', `/user/favorites/guides/${guide.guideid}`, { token: writer.token })).status).toBe(204);
    const favorites = await api('GET', '/user/favorites/guides', { token: writer.token });
    expect(favorites.status).toBe(200);
    expect(schedulesIn(favorites.body.map((mark: { guide: never }) => mark.guide))).toEqual(expected);
    const main = await createGuide(writer.token, { prerequisites: [scheduled.guideid, plain.guideid] });
    const full = await api('GET', `/guides/${main.guideid}`, { token: writer.token });
    expect(full.status).toBe(200);
    // Prerequisites come in the order the guide names them.
    expect(schedulesIn(full.body.prerequisites)).toEqual([
      { guideid: scheduled.guideid, periodicReviewSchedule: shown.periodicReviewSchedule },
      { guideid: plain.guideid, periodicReviewSchedule: null },
    ]);
  });
});
