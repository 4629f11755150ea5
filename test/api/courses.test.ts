import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, uniqueSuffix } from '../support/api.ts';
import { createWiki } from '../support/wikis.ts';
import { createCourse, createTeam, stageGuide } from '../support/courses.ts';

describe('POST /courses', () => {
  it('creates a COURSE wiki with ordered stages (201) whose object matches the Course table', async () => {
    const admin = await loginAdmin();
    const guide = await stageGuide();
    const page = await createWiki();
    const team = await createTeam();
    const title = `Nozzle care ${uniqueSuffix()}`;
    const response = await api('POST', '/courses', {
      token: admin,
      body: {
        title,
        contents: "Keep the '''nozzle''' clean.",
        stages: [
          {
            doctype: 'GUIDE',
            docid: guide.guideid,
            strictness: 'major',
            frequency_quantity: 6,
            frequency_unit: 'month',
          },
          { doctype: 'wiki', docid: page.wikiid, assessment: { teamid: team.teamid } },
        ],
      },
    });
    expect(response.status).toBe(201);
    const course = response.body;
    expect(course.wikiid).toBeGreaterThan(0);
    expect(course.revisionid).toBeGreaterThan(0);
    expect(course).toMatchObject({
      namespace: 'COURSE',
      title,
      langid: 'en',
      contents_raw: "Keep the '''nozzle''' clean.",
      can_edit: true,
      flags: [],
      image: null,
      documents: [],
      enabled: 1,
      assigneeCount: 0,
      assignees: null,
      completionPercent: 0,
      url: `/Courses/View/${course.wikiid}`,
      viewUrl: `/Courses/View/${course.wikiid}`,
      editUrl: `/Courses/Edit/${course.wikiid}`,
      modified_date: null,
    });
    expect(course.fullUrl).toMatch(new RegExp(`^https?://.+/Courses/View/${course.wikiid}$`));
    expect(course.contents_json.type).toBe('doc');
    expect(course.contents_rendered).toContain('<strong>nozzle</strong>');
    expect(typeof course.publish_date).toBe('number');
    expect(typeof course.created_date).toBe('number');
    expect(course.stages).toHaveLength(2);
    const [first, second] = course.stages;
    expect(first).toMatchObject({
      docid: guide.guideid,
      doctype: 'guide',
      orderby: 0,
      strictness: 'major',
      title: guide.title,
      frequency_quantity: 6,
      frequency_unit: 'month',
      completion: null,
      stage_assessmentid: null,
      status: null,
    });
    expect(first.course_stageid).toBeGreaterThan(0);
    expect(first.doc_url).toBe(
      `/Guide/${encodeURIComponent(guide.title.replace(/ /g, '+')).replace(/%2B/g, '+')}/${guide.guideid}`,
    );
    expect(second).toMatchObject({
      doctype: 'wiki',
      docid: page.wikiid,
      orderby: 1,
      strictness: null,
      frequency_quantity: null,
      frequency_unit: null,
    });
    expect(second.doc_url).toBe(`/Wiki/${encodeURIComponent(page.title.replace(/ /g, '_'))}`);
    expect(second.assessment).toMatchObject({ type: 'signoff', teamid: team.teamid });
    expect(second.stage_assessmentid).toBeGreaterThan(0);

    const read = await api('GET', `/courses/${course.wikiid}`, { token: admin });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(course);
  });

  it('is for Authors and Admins; plain users read courses without aggregates', async () => {
    const user = await createUser();
    const author = await createUser({ privileges: ['Author'] });
    expect(
      (await api('POST', '/courses', { token: user.token, body: { title: `X ${uniqueSuffix()}`, contents: 'x' } }))
        .status,
    ).toBe(403);
    const course = await createCourse({}, author.token);
    const read = await api('GET', `/courses/${course.wikiid}`, { token: user.token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ can_edit: false, assigneeCount: null, completionPercent: null });
    expect((await api('GET', `/courses/${course.wikiid}`)).status).toBe(401);
  });

  it('validates: contents required, documents exist, each once, recurrence whole, title unique (422)', async () => {
    const admin = await loginAdmin();
    const guide = await stageGuide();
    const missing = await api('POST', '/courses', { token: admin, body: { title: `T ${uniqueSuffix()}` } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toContainEqual(expect.objectContaining({ field: 'contents', code: 'missing_field' }));
    const unknownDoc = await api('POST', '/courses', {
      token: admin,
      body: { title: `T ${uniqueSuffix()}`, contents: 'x', stages: [{ doctype: 'guide', docid: 99999999 }] },
    });
    expect(unknownDoc.status).toBe(422);
    expect(unknownDoc.body.errors).toContainEqual(
      expect.objectContaining({ field: 'stages[0].docid', code: 'not_found' }),
    );
    const twice = await api('POST', '/courses', {
      token: admin,
      body: {
        title: `T ${uniqueSuffix()}`,
        contents: 'x',
        stages: [
          { doctype: 'guide', docid: guide.guideid },
          { doctype: 'guide', docid: guide.guideid },
        ],
      },
    });
    expect(twice.status).toBe(422);
    expect(twice.body.errors).toContainEqual(expect.objectContaining({ field: 'stages[1].docid', code: 'duplicate' }));
    const half = await api('POST', '/courses', {
      token: admin,
      body: {
        title: `T ${uniqueSuffix()}`,
        contents: 'x',
        stages: [{ doctype: 'guide', docid: guide.guideid, frequency_quantity: 3 }],
      },
    });
    expect(half.status).toBe(422);
    const badTeam = await api('POST', '/courses', {
      token: admin,
      body: {
        title: `T ${uniqueSuffix()}`,
        contents: 'x',
        stages: [{ doctype: 'guide', docid: guide.guideid, assessment: { teamid: 99999999 } }],
      },
    });
    expect(badTeam.status).toBe(422);
    const course = await createCourse();
    const taken = await api('POST', '/courses', { token: admin, body: { title: course.title, contents: 'x' } });
    expect(taken.status).toBe(422);
    expect(taken.body.errors[0]).toMatchObject({ field: 'title', code: 'already_exists' });
    const courseAsStage = await api('POST', '/courses', {
      token: admin,
      body: { title: `T ${uniqueSuffix()}`, contents: 'x', stages: [{ doctype: 'wiki', docid: course.wikiid }] },
    });
    expect(courseAsStage.status).toBe(422);
  });

  it('courses are not created or deleted through /wikis', async () => {
    const admin = await loginAdmin();
    const viaWikis = await api('POST', '/wikis', {
      token: admin,
      body: { namespace: 'COURSE', title: `C ${uniqueSuffix()}`, contents: 'x' },
    });
    expect(viaWikis.status).toBe(422);
    const course = await createCourse();
    const deleted = await api('DELETE', `/wikis/COURSE/${encodeURIComponent(course.title)}`, {
      token: admin,
      query: { revisionid: course.revisionid },
    });
    expect(deleted.status).toBe(422);
    // Renamed only through /courses (its title is also in the course item); contents may change either way.
    const renamed = await api('PATCH', `/wikis/COURSE/${encodeURIComponent(course.title)}`, {
      token: admin,
      query: { revisionid: course.revisionid },
      body: { title: `Other ${uniqueSuffix()}` },
    });
    expect(renamed.status).toBe(422);
    expect(renamed.body.errors[0]).toMatchObject({ field: 'title', code: 'immutable' });
    const edited = await api('PATCH', `/wikis/COURSE/${encodeURIComponent(course.title)}`, {
      token: admin,
      query: { revisionid: course.revisionid },
      body: { contents: 'Edited as a page' },
    });
    expect(edited.status).toBe(200);
    expect((await api('GET', `/courses/${course.wikiid}`, { token: admin })).body).toMatchObject({
      contents_raw: 'Edited as a page',
      revisionid: edited.body.revisionid,
    });
  });
});

describe('GET /courses', () => {
  it('pages by page/pageSize in {"courses": [...]}, ordered by title either way, searchable by title', async () => {
    const admin = await loginAdmin();
    const tag = uniqueSuffix();
    const made = [];
    for (const letter of ['c', 'a', 'b']) made.push(await createCourse({ title: `${tag} ${letter} course` }));
    const search = await api('GET', '/courses', { token: admin, query: { query: tag, pageSize: 2 } });
    expect(search.status).toBe(200);
    expect(search.body.courses.map((c: { title: string }) => c.title)).toEqual([`${tag} a course`, `${tag} b course`]);
    const second = await api('GET', '/courses', { token: admin, query: { query: tag, pageSize: 2, page: 2 } });
    expect(second.body.courses.map((c: { title: string }) => c.title)).toEqual([`${tag} c course`]);
    const descending = await api('GET', '/courses', { token: admin, query: { query: tag, direction: 'desc' } });
    expect(descending.body.courses.map((c: { title: string }) => c.title)).toEqual([
      `${tag} c course`,
      `${tag} b course`,
      `${tag} a course`,
    ]);
    expect(descending.body.courses[0]).toMatchObject({ url: `/Courses/View/${made[0].wikiid}`, namespace: 'COURSE' });
    expect(descending.body.courses[0].author.userid).toBe(1);

    // The whole list in title order: each page follows the previous one.
    const all = await api('GET', '/courses', { token: admin, query: { pageSize: 200 } });
    const titles = all.body.courses.map((c: { title: string }) => c.title.toLowerCase());
    expect(titles.length).toBeGreaterThan(3);
    expect(titles).toEqual([...titles].sort());
  });

  it('orders by modified_date and hides disabled courses unless disabledOkay (Authors)', async () => {
    const admin = await loginAdmin();
    const disabled = await createCourse({ enabled: false });
    const recent = await api('GET', '/courses', {
      token: admin,
      query: { orderby: 'modified_date', direction: 'DESC', pageSize: 5 },
    });
    expect(recent.body.courses.some((c: { wikiid: number }) => c.wikiid === disabled.wikiid)).toBe(false);
    const withDisabled = await api('GET', '/courses', {
      token: admin,
      query: { orderby: 'modified_date', direction: 'DESC', pageSize: 5, disabledOkay: 1 },
    });
    expect(withDisabled.body.courses[0].wikiid).toBe(disabled.wikiid);
    const dates = withDisabled.body.courses.map(
      (c: { created_date: number; modified_date: number | null }) => c.modified_date ?? c.created_date,
    );
    expect(dates).toEqual([...dates].sort((a: number, b: number) => b - a));
    const user = await createUser();
    const asUser = await api('GET', '/courses', {
      token: user.token,
      query: { orderby: 'modified_date', direction: 'DESC', pageSize: 5, disabledOkay: 1 },
    });
    expect(asUser.body.courses.some((c: { wikiid: number }) => c.wikiid === disabled.wikiid)).toBe(false);
    expect((await api('GET', `/courses/${disabled.wikiid}`, { token: user.token })).status).toBe(403);
  });

  it('rejects an unknown orderby (422)', async () => {
    const response = await api('GET', '/courses', { token: await loginAdmin(), query: { orderby: 'popularity' } });
    expect(response.status).toBe(422);
  });
});

describe('PATCH /courses/{wikiid}', () => {
  it('makes a new revision; stale revisionid → 409 with the current course; missing → 422', async () => {
    const admin = await loginAdmin();
    const guide = await stageGuide();
    const course = await createCourse({ stages: [{ doctype: 'guide', docid: guide.guideid }] });
    const stageid = course.stages[0].course_stageid;
    const other = await stageGuide();
    const changed = await api('PATCH', `/courses/${course.wikiid}`, {
      token: admin,
      query: { revisionid: course.revisionid },
      body: {
        contents: 'New text',
        stages: [
          { doctype: 'guide', docid: other.guideid },
          { doctype: 'guide', docid: guide.guideid, course_stageid: stageid, strictness: 'minor' },
        ],
      },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.revisionid).toBeGreaterThan(course.revisionid);
    expect(changed.body.contents_raw).toBe('New text');
    expect(changed.body.modified_date).toBeGreaterThanOrEqual(course.created_date);
    expect(changed.body.stages.map((s: { docid: number; orderby: number }) => [s.docid, s.orderby])).toEqual([
      [other.guideid, 0],
      [guide.guideid, 1],
    ]);
    expect(changed.body.stages[1]).toMatchObject({ course_stageid: stageid, strictness: 'minor' });
    expect(changed.body.stages[0].course_stageid).not.toBe(stageid);

    const stale = await api('PATCH', `/courses/${course.wikiid}`, {
      token: admin,
      query: { revisionid: course.revisionid },
      body: { contents: 'Lost' },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      wikiid: course.wikiid,
      revisionid: changed.body.revisionid,
      contents_raw: 'New text',
    });
    const missing = await api('PATCH', `/courses/${course.wikiid}`, { token: admin, body: { contents: 'x' } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
    const unknownStage = await api('PATCH', `/courses/${course.wikiid}`, {
      token: admin,
      query: { revisionid: changed.body.revisionid },
      body: { stages: [{ doctype: 'guide', docid: guide.guideid, course_stageid: 99999999 }] },
    });
    expect(unknownStage.status).toBe(422);
    const user = await createUser();
    expect(
      (
        await api('PATCH', `/courses/${course.wikiid}`, {
          token: user.token,
          query: { revisionid: changed.body.revisionid },
          body: { contents: 'x' },
        })
      ).status,
    ).toBe(403);
  });

  it('404 for a wiki that is not a course', async () => {
    const page = await createWiki();
    const response = await api('PATCH', `/courses/${page.wikiid}`, {
      token: await loginAdmin(),
      query: { revisionid: page.revisionid },
      body: { contents: 'x' },
    });
    expect(response.status).toBe(404);
    expect((await api('GET', `/courses/${page.wikiid}`, { token: await loginAdmin() })).status).toBe(404);
  });
});

describe('DELETE /courses/{wikiid}', () => {
  it('deletes (204) without a revisionid; a stale one is 409; the title is free again', async () => {
    const admin = await loginAdmin();
    const course = await createCourse();
    const stale = await api('DELETE', `/courses/${course.wikiid}`, {
      token: admin,
      query: { revisionid: course.revisionid + 1000 },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.wikiid).toBe(course.wikiid);
    const deleted = await api('DELETE', `/courses/${course.wikiid}`, { token: admin });
    expect(deleted.status).toBe(204);
    expect((await api('GET', `/courses/${course.wikiid}`, { token: admin })).status).toBe(404);
    expect((await api('DELETE', `/courses/${course.wikiid}`, { token: admin })).status).toBe(404);
    const again = await createCourse({ title: course.title });
    expect(again.wikiid).not.toBe(course.wikiid);
  });
});
