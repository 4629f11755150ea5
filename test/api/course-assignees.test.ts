import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, siteUrl, uniqueSuffix, type TestUser } from '../support/api.ts';
import { ageCompletion, ageRow, assign, createCourse, createTeam, stageGuide } from '../support/courses.ts';

const complete = (user: TestUser, guideid: number) =>
  api('PATCH', `/course_assignments/complete/guide/${guideid}`, { token: user.token, body: {} });
const names = (response: { body: { response: Array<{ username: string }> } }) =>
  response.body.response.map((row) => row.username);

describe('GET /course_assignees/course/{wikiid}/users', () => {
  const tag = uniqueSuffix();
  let course: any;
  let guides: Array<{ guideid: number }>;
  const users: Record<string, TestUser> = {};
  const assignments: Record<string, any> = {};

  beforeAll(async () => {
    guides = [await stageGuide(), await stageGuide()];
    course = await createCourse({ stages: guides.map((guide) => ({ doctype: 'guide', docid: guide.guideid })) });
    // Names sort as a < b < c < d; progress: a both stages, b one, c none, d started one.
    for (const name of ['c', 'a', 'd', 'b']) {
      users[name] = await createUser({ username: `${tag} ${name}` });
      assignments[name] = await assign({
        wikiid: course.wikiid,
        userid: users[name].userid,
        due_within: 86400 * (name.charCodeAt(0) - 96),
      });
    }
    await complete(users.a, guides[0].guideid);
    await complete(users.a, guides[1].guideid);
    await complete(users.b, guides[1].guideid);
    await api('PATCH', `/course_assignments/start/guide/${guides[0].guideid}`, { token: users.d.token });
    // A team assignment is not a user assignment: its members are listed under /teams.
    const member = await createUser({ username: `${tag} e` });
    const team = await createTeam({ members: [member.userid] });
    await assign({ wikiid: course.wikiid, teamid: team.teamid });
  });

  it('rows in {"response": [...]} with the real service\'s fields, by username by default', async () => {
    const admin = await loginAdmin();
    const response = await api('GET', `/course_assignees/course/${course.wikiid}/users`, { token: admin });
    expect(response.status).toBe(200);
    expect(names(response)).toEqual([`${tag} a`, `${tag} b`, `${tag} c`, `${tag} d`]);
    const [a, b, c, d] = response.body.response;
    expect(a).toMatchObject({
      total_stages: 2,
      completed_stages: 2,
      status: 'Completed',
      userid: users.a.userid,
      course_assignmentid: assignments.a.course_assignmentid,
      recurrent_date: null,
      is_overdue: false,
      // A user without an avatar: the default avatar's 140x105, as the real service sends it.
      user_avatar: `${siteUrl()}/assets/default-avatar.140x105`,
    });
    const avatar = await fetch(a.user_avatar);
    expect(avatar.status).toBe(200);
    expect(avatar.headers.get('content-type')).toMatch(/^image\//);
    expect(a.course_completion_date).toBeGreaterThan(0);
    expect(a.due_date).toBe(a.assignment_date + 86400);
    expect(b).toMatchObject({ completed_stages: 1, status: 'In Progress', course_completion_date: null });
    expect(c).toMatchObject({ completed_stages: 0, status: 'Not Started' });
    expect(d).toMatchObject({ completed_stages: 0, status: 'In Progress' });
    expect(Object.keys(a)).toEqual(
      expect.arrayContaining([
        'total_stages',
        'username',
        'user_avatar',
        'completed_stages',
        'status',
        'course_completion_date',
        'assignment_date',
        'recurrent_date',
        'due_date',
        'is_overdue',
      ]),
    );
  });

  it('pages by page/limit; sorts by each order either way; filters by status and search', async () => {
    const admin = await loginAdmin();
    const get = (query: Record<string, string | number>) =>
      api('GET', `/course_assignees/course/${course.wikiid}/users`, { token: admin, query });
    expect(names(await get({ limit: 2, page: 2 }))).toEqual([`${tag} c`, `${tag} d`]);
    expect(names(await get({ direction: 'DESC' }))).toEqual([`${tag} d`, `${tag} c`, `${tag} b`, `${tag} a`]);
    expect(names(await get({ orderby: 'stage_progress', direction: 'DESC' })).slice(0, 2)).toEqual([
      `${tag} a`,
      `${tag} b`,
    ]);
    expect(names(await get({ orderby: 'status' }))).toEqual([`${tag} c`, `${tag} b`, `${tag} d`, `${tag} a`]);
    expect(names(await get({ orderby: 'due_date' }))).toEqual([`${tag} a`, `${tag} b`, `${tag} c`, `${tag} d`]);
    expect(names(await get({ orderby: 'due_date', direction: 'desc' }))).toEqual([
      `${tag} d`,
      `${tag} c`,
      `${tag} b`,
      `${tag} a`,
    ]);
    expect(names(await get({ orderby: 'course_completion_date' }))[0]).toBe(`${tag} a`);
    expect(names(await get({ orderby: 'assignment_date' }))).toHaveLength(4);
    expect(names(await get({ orderby: 'recurrence_date' }))).toHaveLength(4);
    expect(names(await get({ status: 'not_started,completed' }))).toEqual([`${tag} a`, `${tag} c`]);
    expect(names(await get({ status: 'in_progress', orderby: 'username', direction: 'DESC' }))).toEqual([
      `${tag} d`,
      `${tag} b`,
    ]);
    expect(names(await get({ search: `${tag} b`.toUpperCase() }))).toEqual([`${tag} b`]);
    expect((await get({ orderby: 'shoe_size' })).status).toBe(422);
    expect((await get({ status: 'asleep' })).status).toBe(422);
  });

  it('is_overdue (experimental): past the due date and not completed', async () => {
    await ageRow(assignments.c.course_assignmentid, users.c.userid, 86400 * 5);
    await ageRow(assignments.a.course_assignmentid, users.a.userid, 86400 * 5);
    const rows = (await api('GET', `/course_assignees/course/${course.wikiid}/users`, { token: await loginAdmin() }))
      .body.response;
    expect(rows.find((row: { userid: number }) => row.userid === users.c.userid).is_overdue).toBe(true);
    expect(rows.find((row: { userid: number }) => row.userid === users.a.userid).is_overdue).toBe(false);
    const openapi = await api('GET', '/openapi.json');
    const operation = openapi.body.paths['/course_assignees/course/{wikiid}/users'].get;
    expect(operation['x-experimental-fields']).toEqual(['is_overdue']);
    expect(JSON.stringify(operation)).toContain('EXPERIMENTAL');
  });

  it('Authors and Admins only (403); unknown course 404', async () => {
    expect((await api('GET', `/course_assignees/course/${course.wikiid}/users`, { token: users.a.token })).status).toBe(
      403,
    );
    expect((await api('GET', '/course_assignees/course/99999999/users', { token: await loginAdmin() })).status).toBe(
      404,
    );
  });
});

describe('stored rows follow time: a recurrence expiry is applied before aggregates are read', () => {
  it("the expired row is recomputed (status, counts) and the course's completion follows", async () => {
    const admin = await loginAdmin();
    const guide = await stageGuide();
    const course = await createCourse({
      stages: [{ doctype: 'guide', docid: guide.guideid, frequency_quantity: 1, frequency_unit: 'week' }],
    });
    const trainee = await createUser();
    const assignment = await assign({ wikiid: course.wikiid, userid: trainee.userid });
    await complete(trainee, guide.guideid);
    const before = (await api('GET', `/course_assignees/course/${course.wikiid}/users`, { token: admin })).body
      .response[0];
    expect(before).toMatchObject({ status: 'Completed', completed_stages: 1 });
    expect(before.recurrent_date).toBe(before.course_completion_date + 7 * 86400);
    expect((await api('GET', `/courses/${course.wikiid}`, { token: admin })).body.completionPercent).toBe(100);
    // Eight days pass.
    await ageCompletion(trainee.userid, 'guide', guide.guideid, 8 * 86400);
    await ageRow(assignment.course_assignmentid, trainee.userid, 8 * 86400);
    const after = (await api('GET', `/course_assignees/course/${course.wikiid}/users`, { token: admin })).body
      .response[0];
    expect(after).toMatchObject({
      status: 'In Progress',
      completed_stages: 0,
      recurrent_date: null,
      course_completion_date: null,
    });
    expect((await api('GET', `/courses/${course.wikiid}`, { token: admin })).body.completionPercent).toBe(0);
  });
});

describe('GET /course_assignees/course/{wikiid}/teams and /teams/{teamid}', () => {
  it('team entries with stored progress and members; the team detail pages its members', async () => {
    const admin = await loginAdmin();
    const owner = await createUser();
    const members = [await createUser(), await createUser()];
    const team = await createTeam({ owner: owner.userid, members: members.map((m) => m.userid) });
    const guide = await stageGuide();
    const course = await createCourse({ stages: [{ doctype: 'guide', docid: guide.guideid }] });
    const assignment = await assign({ wikiid: course.wikiid, teamid: team.teamid, due_within: 3600 });
    await complete(members[0], guide.guideid);

    const teams = await api('GET', `/course_assignees/course/${course.wikiid}/teams`, { token: admin });
    expect(teams.status).toBe(200);
    expect(teams.body.response).toHaveLength(1);
    const entry = teams.body.response[0];
    expect(entry).toMatchObject({
      course_assignmentid: assignment.course_assignmentid,
      teamid: team.teamid,
      name: team.name,
      member_count: 3,
      completed_members: 1,
      not_started_members: 2,
      in_progress_members: 0,
      completion_percentage: 33.33,
      due_date: assignment.created_date + 3600,
      is_overdue: false,
    });
    expect(entry.team).toMatchObject({ teamid: team.teamid, owner: owner.userid });
    expect(entry.members.map((m: { userid: number }) => m.userid).sort()).toEqual(
      [owner.userid, ...members.map((m) => m.userid)].sort(),
    );
    expect(
      (
        await api('GET', `/course_assignees/course/${course.wikiid}/teams`, {
          token: admin,
          query: { search: team.name.slice(-6) },
        })
      ).body.response,
    ).toHaveLength(1);
    expect(
      (
        await api('GET', `/course_assignees/course/${course.wikiid}/teams`, {
          token: admin,
          query: { search: 'no such team' },
        })
      ).body.response,
    ).toHaveLength(0);

    const detail = `/course_assignees/course/${course.wikiid}/teams/${team.teamid}`;
    const first = await api('GET', detail, { token: owner.token, query: { limit: 2 } });
    expect(first.status).toBe(200);
    expect(first.body.response).toMatchObject({ teamid: team.teamid, member_count: 3, completed_members: 1 });
    expect(first.body.response.members).toHaveLength(2);
    const second = await api('GET', detail, { token: owner.token, query: { limit: 2, page: 2 } });
    expect(second.body.response.members).toHaveLength(1);
    const completed = await api('GET', detail, { token: admin, query: { status: 'completed' } });
    expect(completed.body.response.members.map((m: { userid: number }) => m.userid)).toEqual([members[0].userid]);
    expect((await api('GET', detail, { token: members[1].token })).status).toBe(403);
    expect(
      (await api('GET', `/course_assignees/course/${course.wikiid}/teams/99999999`, { token: admin })).status,
    ).toBe(404);
    const unassigned = await createTeam();
    expect(
      (await api('GET', `/course_assignees/course/${course.wikiid}/teams/${unassigned.teamid}`, { token: admin }))
        .status,
    ).toBe(404);
  });
});
