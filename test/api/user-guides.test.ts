import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin } from '../support/api.ts';
import { createGuide, publish } from './guide-fixtures.ts';
import { assign, createCourse, getAssignment, entryOf } from '../support/courses.ts';

const author = () => createUser({ privileges: ['Author'] });
const guideids = (entries: Array<{ guide: { guideid: number } }>) => entries.map((entry) => entry.guide.guideid);

describe('favorites', () => {
  it('PUT favorites a guide (204, idempotent), the guide says favorited, lists show {guide, date}, DELETE un-favorites', async () => {
    const admin = await loginAdmin();
    const [a, b] = [await publish(admin, await createGuide(admin)), await publish(admin, await createGuide(admin))];
    const user = await createUser();
    const put = await api('PUT', `/user/favorites/guides/${b.guideid}`, { token: user.token, body: {} });
    expect(put.status).toBe(204);
    expect((await api('PUT', `/user/favorites/guides/${b.guideid}`, { token: user.token, body: {} })).status).toBe(204);
    expect((await api('PUT', `/user/favorites/guides/${a.guideid}`, { token: user.token })).status).toBe(204);
    expect((await api('GET', `/guides/${b.guideid}`, { token: user.token })).body.favorited).toBe(true);
    expect((await api('GET', `/guides/${b.guideid}`, { token: admin })).body.favorited).toBe(false);

    const mine = await api('GET', '/user/favorites/guides', { token: user.token });
    expect(mine.status).toBe(200);
    expect(guideids(mine.body)).toEqual([a.guideid, b.guideid]);
    expect(mine.body[0]).toEqual({
      guide: expect.objectContaining({ dataType: 'guide', guideid: a.guideid, title: a.title }),
      date: expect.any(Number),
    });
    const paged = await api('GET', '/user/favorites/guides', { token: user.token, query: { limit: 1, offset: 1 } });
    expect(guideids(paged.body)).toEqual([b.guideid]);
    const theirs = await api('GET', `/users/${user.userid}/favorites/guides`, { token: admin });
    expect(guideids(theirs.body)).toEqual([a.guideid, b.guideid]);

    expect((await api('DELETE', `/user/favorites/guides/${a.guideid}`, { token: user.token })).status).toBe(204);
    expect((await api('DELETE', `/user/favorites/guides/${a.guideid}`, { token: user.token })).status).toBe(204);
    expect(guideids((await api('GET', '/user/favorites/guides', { token: user.token })).body)).toEqual([b.guideid]);
  });

  it('404 for an unknown guide or user, 401 anonymous; a favorite that became private is hidden from others', async () => {
    const user = await createUser();
    expect((await api('PUT', '/user/favorites/guides/999999999', { token: user.token })).status).toBe(404);
    expect((await api('GET', '/users/999999999/favorites/guides', { token: user.token })).status).toBe(404);
    expect((await api('GET', '/user/favorites/guides')).status).toBe(401);
    const writer = await author();
    const guide = await publish(writer.token, await createGuide(writer.token));
    const fan = await createUser();
    await api('PUT', `/user/favorites/guides/${guide.guideid}`, { token: fan.token });
    await api('DELETE', `/guides/${guide.guideid}/public`, {
      token: writer.token,
      query: { revisionid: guide.revisionid },
    });
    expect((await api('GET', '/user/favorites/guides', { token: fan.token })).body).toEqual([]);
    expect(guideids((await api('GET', `/users/${fan.userid}/favorites/guides`, { token: writer.token })).body)).toEqual(
      [guide.guideid],
    );
  });
});

describe('completions', () => {
  it('PUT/DELETE /guides/{guideid}/completed mark and unmark; the guide says completed; lists show {guide, date}', async () => {
    const admin = await loginAdmin();
    const guide = await publish(admin, await createGuide(admin));
    const user = await createUser();
    expect((await api('PUT', `/guides/${guide.guideid}/completed`, { token: user.token, body: {} })).status).toBe(204);
    expect((await api('PUT', `/guides/${guide.guideid}/completed`, { token: user.token, body: {} })).status).toBe(204);
    expect((await api('GET', `/guides/${guide.guideid}`, { token: user.token })).body).toMatchObject({
      completed: true,
      favorited: false,
    });
    const mine = await api('GET', '/user/completions', { token: user.token });
    expect(guideids(mine.body)).toEqual([guide.guideid]);
    expect(mine.body[0].date).toBeGreaterThan(0);
    expect(guideids((await api('GET', `/users/${user.userid}/completions`, { token: admin })).body)).toEqual([
      guide.guideid,
    ]);
    expect((await api('DELETE', `/guides/${guide.guideid}/completed`, { token: user.token })).status).toBe(204);
    expect((await api('GET', '/user/completions', { token: user.token })).body).toEqual([]);
    expect((await api('GET', `/guides/${guide.guideid}`, { token: user.token })).body.completed).toBe(false);
  });

  it('include guides completed in training: completing a guide stage marks the guide completed, one concept', async () => {
    const admin = await loginAdmin();
    const [trained, manual, untouched] = [
      await publish(admin, await createGuide(admin)),
      await publish(admin, await createGuide(admin)),
      await publish(admin, await createGuide(admin)),
    ];
    const course = await createCourse({
      stages: [trained, untouched].map((guide) => ({ doctype: 'guide', docid: guide.guideid })),
    });
    const trainee = await createUser();
    const assignment = await assign({ wikiid: course.wikiid, userid: trainee.userid });

    // Started is not completed.
    expect(
      (await api('PATCH', `/course_assignments/start/guide/${trained.guideid}`, { token: trainee.token })).status,
    ).toBe(200);
    expect((await api('GET', '/user/completions', { token: trainee.token })).body).toEqual([]);
    expect((await api('GET', `/guides/${trained.guideid}`, { token: trainee.token })).body.completed).toBe(false);

    const completed = await api('PATCH', `/course_assignments/complete/guide/${trained.guideid}`, {
      token: trainee.token,
      body: {},
    });
    expect(completed.status).toBe(200);
    expect(entryOf((await getAssignment(assignment.course_assignmentid)).body, trainee.userid).status).toBe(
      'completed',
    );
    expect((await api('PUT', `/guides/${manual.guideid}/completed`, { token: trainee.token })).status).toBe(204);

    const mine = await api('GET', '/user/completions', { token: trainee.token });
    expect(guideids(mine.body)).toEqual([trained.guideid, manual.guideid]);
    expect(mine.body[0].date).toBeGreaterThan(0);
    expect(guideids((await api('GET', `/users/${trainee.userid}/completions`, { token: admin })).body)).toEqual([
      trained.guideid,
      manual.guideid,
    ]);
    expect(
      guideids((await api('GET', '/user/completions', { token: trainee.token, query: { limit: 1, offset: 1 } })).body),
    ).toEqual([manual.guideid]);
    expect((await api('GET', `/guides/${trained.guideid}`, { token: trainee.token })).body.completed).toBe(true);
    expect((await api('GET', `/guides/${untouched.guideid}`, { token: trainee.token })).body.completed).toBe(false);
    expect((await api('GET', `/guides/${trained.guideid}`, { token: admin })).body.completed).toBe(false);

    // Completing again in training keeps the first date; un-marking is the user's own choice.
    const firstDate = mine.body[0].date;
    await api('PATCH', `/course_assignments/complete/guide/${trained.guideid}`, { token: trainee.token, body: {} });
    expect((await api('GET', '/user/completions', { token: trainee.token })).body[0].date).toBe(firstDate);
    expect((await api('DELETE', `/guides/${trained.guideid}/completed`, { token: trainee.token })).status).toBe(204);
    expect(guideids((await api('GET', '/user/completions', { token: trainee.token })).body)).toEqual([manual.guideid]);
    expect((await api('GET', `/guides/${trained.guideid}`, { token: trainee.token })).body.completed).toBe(false);
  });

  it("a manager completing a guide stage on a trainee's behalf counts for the trainee, not the manager", async () => {
    const admin = await loginAdmin();
    const guide = await publish(admin, await createGuide(admin));
    const course = await createCourse({ stages: [{ doctype: 'guide', docid: guide.guideid }] });
    const trainee = await createUser();
    await assign({ wikiid: course.wikiid, userid: trainee.userid });
    const override = await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, {
      token: admin,
      body: { userid: trainee.userid },
    });
    expect(override.status).toBe(200);
    expect(guideids((await api('GET', `/users/${trainee.userid}/completions`, { token: admin })).body)).toEqual([
      guide.guideid,
    ]);
    expect((await api('GET', `/guides/${guide.guideid}`, { token: trainee.token })).body.completed).toBe(true);
    expect((await api('GET', `/guides/${guide.guideid}`, { token: admin })).body.completed).toBe(false);
  });

  it('completing a guide without an assignment on it records nothing (422 not_assigned)', async () => {
    const admin = await loginAdmin();
    const guide = await publish(admin, await createGuide(admin));
    const user = await createUser();
    const refused = await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, {
      token: user.token,
      body: {},
    });
    expect(refused.status).toBe(422);
    expect((await api('GET', '/user/completions', { token: user.token })).body).toEqual([]);
  });

  it('needs a guide the caller can read (403 private, 404 unknown) and a token (401)', async () => {
    const writer = await author();
    const hidden = await createGuide(writer.token);
    const user = await createUser();
    expect((await api('PUT', `/guides/${hidden.guideid}/completed`, { token: user.token })).status).toBe(403);
    expect((await api('PUT', '/guides/999999999/completed', { token: user.token })).status).toBe(404);
    expect((await api('PUT', `/guides/${hidden.guideid}/completed`)).status).toBe(401);
    expect((await api('GET', '/users/999999999/completions', { token: user.token })).status).toBe(404);
  });
});

describe('authored guides', () => {
  it("GET /user/guides and /users/{userid}/guides list the author's guides by guideid, paged", async () => {
    const writer = await author();
    const first = await createGuide(writer.token);
    const second = await publish(writer.token, await createGuide(writer.token));
    const mine = await api('GET', '/user/guides', { token: writer.token });
    expect(mine.body.map((guide: { guideid: number }) => guide.guideid)).toEqual([first.guideid, second.guideid]);
    expect(mine.body[0]).toMatchObject({ dataType: 'guide', userid: writer.userid, public: false });
    const page = await api('GET', `/users/${writer.userid}/guides`, {
      token: await loginAdmin(),
      query: { limit: 1, offset: 1 },
    });
    expect(page.body.map((guide: { guideid: number }) => guide.guideid)).toEqual([second.guideid]);
    expect((await api('GET', '/users/999999999/guides', { token: writer.token })).status).toBe(404);
    expect((await api('GET', '/user/guides')).status).toBe(401);
  });
});
