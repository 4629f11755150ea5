import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, type TestUser } from '../support/api.ts';
import { assign, createCourse, createTeam, entryOf, getAssignment, stageGuide } from '../support/courses.ts';

const complete = (user: TestUser, guideid: number, body: Record<string, unknown> = {}) =>
  api('PATCH', `/course_assignments/complete/guide/${guideid}`, { token: user.token, body });

/** A team (owner + two members) assigned a two-stage course, and one member also assigned another course alone. */
async function scenario() {
  const owner = await createUser();
  const members = [await createUser(), await createUser()];
  const team = await createTeam({ owner: owner.userid, members: members.map((m) => m.userid) });
  const guides = [await stageGuide(), await stageGuide()];
  const course = await createCourse({ stages: guides.map((g) => ({ doctype: 'guide', docid: g.guideid })) });
  const teamAssignment = await assign({ wikiid: course.wikiid, teamid: team.teamid, due_within: 86400 });
  const soloGuide = await stageGuide();
  const solo = await createCourse({ stages: [{ doctype: 'guide', docid: soloGuide.guideid }] });
  const soloAssignment = await assign({ wikiid: solo.wikiid, userid: members[0].userid });
  return { owner, members, team, guides, course, teamAssignment, soloGuide, solo, soloAssignment };
}

describe('summaries and completion reports read stored aggregates', () => {
  it('user, team and course reports and summaries agree with what happened', async () => {
    const admin = await loginAdmin();
    const s = await scenario();
    await complete(s.members[0], s.guides[0].guideid);
    await complete(s.members[0], s.guides[1].guideid);
    await complete(s.members[1], s.guides[0].guideid);
    await complete(s.members[0], s.soloGuide.guideid);

    const user = await api('GET', `/course_assignments/completion/user/${s.members[0].userid}`, {
      token: s.members[0].token,
    });
    expect(user.status).toBe(200);
    expect(user.body.progress).toEqual({
      users: 2,
      completed: 2,
      in_progress: 0,
      not_started: 0,
      completion_percentage: 100,
    });
    expect(
      user.body.courses
        .map((c: { wikiid: number; source: string; status: string }) => [c.wikiid, c.source, c.status])
        .sort(),
    ).toEqual(
      [
        [s.course.wikiid, 'team', 'Completed'],
        [s.solo.wikiid, 'user', 'Completed'],
      ].sort(),
    );

    const team = await api('GET', `/course_assignments/completion/team/${s.team.teamid}`, { token: s.owner.token });
    expect(team.status).toBe(200);
    expect(team.body.progress).toEqual({
      users: 3,
      completed: 1,
      in_progress: 1,
      not_started: 1,
      completion_percentage: 33.33,
    });
    expect(team.body.assignments).toEqual([
      expect.objectContaining({
        course_assignmentid: s.teamAssignment.course_assignmentid,
        wikiid: s.course.wikiid,
        course_title: s.course.title,
      }),
    ]);

    const course = await api('GET', `/course_assignments/completion/course/${s.course.wikiid}`, { token: admin });
    expect(course.body).toMatchObject({
      wikiid: s.course.wikiid,
      assignee_count: 1,
      stage_count: 2,
      progress: { users: 3, completed: 1, in_progress: 1, not_started: 1 },
    });
    expect(course.body.assignments[0]).toMatchObject({
      assignee_teamid: s.team.teamid,
      progress: { users: 3, completed: 1 },
    });

    const teamUser = await api(
      'GET',
      `/course_assignments/completion/team/${s.team.teamid}/user/${s.members[0].userid}`,
      { token: s.owner.token },
    );
    expect(teamUser.body.courses.map((c: { wikiid: number }) => c.wikiid)).toEqual([s.course.wikiid]);
    expect(teamUser.body.progress).toMatchObject({ users: 1, completed: 1 });

    const courseUser = await api('GET', `/course_assignments/completion/${s.course.wikiid}/${s.members[1].userid}`, {
      token: s.owner.token,
    });
    expect(courseUser.body).toMatchObject({ wikiid: s.course.wikiid, userid: s.members[1].userid, assigned: true });
    expect(
      courseUser.body.stages.map((stage: { stage_status: { status: string } }) => stage.stage_status.status),
    ).toEqual(['completed', 'pending']);

    const individual = await api('GET', `/course_assignments/individualSummaries/${s.members[1].userid}`, {
      token: s.members[1].token,
    });
    expect(individual.body).toMatchObject({
      userid: s.members[1].userid,
      users: 1,
      completed: 0,
      in_progress: 1,
      not_started: 0,
    });
    const teamSummary = await api('GET', `/course_assignments/teamSummaries/${s.team.teamid}`, {
      token: s.members[1].token,
    });
    expect(teamSummary.body).toMatchObject({ teamid: s.team.teamid, users: 3, completed: 1, in_progress: 1 });

    const allUsers = await api('GET', '/course_assignments/individualSummaries', {
      token: admin,
      query: { limit: 200 },
    });
    expect(allUsers.status).toBe(200);
    expect(Array.isArray(allUsers.body)).toBe(true);
    const allTeams = await api('GET', '/course_assignments/teamSummaries', { token: admin, query: { limit: 200 } });
    expect(allTeams.status).toBe(200);

    const many = await api('POST', '/course_assignments/completion/users', {
      token: s.owner.token,
      body: { userids: [s.members[0].userid, s.members[1].userid] },
    });
    expect(many.status).toBe(200);
    expect(many.body.reports.map((r: { userid: number }) => r.userid)).toEqual([
      s.members[0].userid,
      s.members[1].userid,
    ]);
    const manyTeams = await api('POST', '/course_assignments/completion/teams', {
      token: s.owner.token,
      body: { teamids: [s.team.teamid] },
    });
    expect(manyTeams.body.reports[0].teamid).toBe(s.team.teamid);
    const manyCourses = await api('POST', '/course_assignments/completion/courses', {
      token: admin,
      body: { wikiids: [s.course.wikiid, s.solo.wikiid] },
    });
    expect(manyCourses.body.reports.map((r: { wikiid: number }) => r.wikiid)).toEqual([s.course.wikiid, s.solo.wikiid]);
    const unknown = await api('POST', '/course_assignments/completion/courses', {
      token: admin,
      body: { wikiids: [s.course.wikiid, 99999999] },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0]).toMatchObject({ field: 'wikiids', code: 'not_found' });
  });

  it('who may read: the user, their managers, Admins; teams: members and owner; courses: Authors and Admins', async () => {
    const s = await scenario();
    const stranger = await createUser();
    expect(
      (await api('GET', `/course_assignments/completion/user/${s.members[0].userid}`, { token: stranger.token }))
        .status,
    ).toBe(403);
    expect(
      (await api('GET', `/course_assignments/completion/user/${s.members[0].userid}`, { token: s.owner.token })).status,
    ).toBe(200);
    expect(
      (await api('GET', `/course_assignments/completion/team/${s.team.teamid}`, { token: stranger.token })).status,
    ).toBe(403);
    expect(
      (await api('GET', `/course_assignments/completion/course/${s.course.wikiid}`, { token: s.owner.token })).status,
    ).toBe(403);
    expect(
      (
        await api('GET', `/course_assignments/completion/team/${s.team.teamid}/user/${s.members[0].userid}`, {
          token: s.members[1].token,
        })
      ).status,
    ).toBe(403);
    expect((await api('GET', '/course_assignments/individualSummaries', { token: s.owner.token })).status).toBe(403);
    expect(
      (await api('GET', `/course_assignments/individualSummaries/${s.members[0].userid}`, { token: stranger.token }))
        .status,
    ).toBe(403);
    expect(
      (
        await api('POST', '/course_assignments/completion/users', {
          token: stranger.token,
          body: { userids: [s.members[0].userid] },
        })
      ).status,
    ).toBe(403);
    expect(
      (await api('GET', '/course_assignments/completion/user/99999999', { token: await loginAdmin() })).status,
    ).toBe(404);
  });
});

describe('sources and details', () => {
  it("where a user's and a team's assignments come from; the assignment without per-user entries", async () => {
    const s = await scenario();
    const userSources = await api('GET', `/course_assignments/sources/user/${s.members[0].userid}`, {
      token: s.members[0].token,
    });
    expect(userSources.status).toBe(200);
    expect(
      userSources.body
        .map((x: { course_assignmentid: number; source: string; assignee_teamid: number | null }) => [
          x.course_assignmentid,
          x.source,
          x.assignee_teamid,
        ])
        .sort(),
    ).toEqual(
      [
        [s.teamAssignment.course_assignmentid, 'team', s.team.teamid],
        [s.soloAssignment.course_assignmentid, 'user', null],
      ].sort(),
    );
    const teamSources = await api('GET', `/course_assignments/sources/team/${s.team.teamid}`, {
      token: s.members[1].token,
    });
    expect(teamSources.body).toEqual([
      expect.objectContaining({
        course_assignmentid: s.teamAssignment.course_assignmentid,
        wikiid: s.course.wikiid,
        progress: expect.objectContaining({ users: 3 }),
      }),
    ]);
    const details = await api(
      'GET',
      `/course_assignments/courseAssignmentDetails/${s.teamAssignment.course_assignmentid}`,
      { token: s.owner.token },
    );
    expect(details.status).toBe(200);
    expect(details.body).toMatchObject({
      course_assignmentid: s.teamAssignment.course_assignmentid,
      assignee_teamid: s.team.teamid,
      cancelled: 0,
      course: { wikiid: s.course.wikiid, stage_count: 2 },
      progress: { users: 3 },
    });
    expect(details.body).not.toHaveProperty('completion_status');
    const stranger = await createUser();
    expect(
      (
        await api('GET', `/course_assignments/courseAssignmentDetails/${s.teamAssignment.course_assignmentid}`, {
          token: stranger.token,
        })
      ).status,
    ).toBe(403);
    expect(
      (await api('GET', `/course_assignments/sources/team/${s.team.teamid}`, { token: stranger.token })).status,
    ).toBe(403);
  });
});

describe('completeAll / invalidateAll and stage_completions', () => {
  it('a manager completes and invalidates everything for a user; for a team', async () => {
    const s = await scenario();
    const stranger = await createUser();
    expect(
      (await api('PATCH', `/course_assignments/User/completeAll/${s.members[0].userid}`, { token: stranger.token }))
        .status,
    ).toBe(403);
    const all = await api('PATCH', `/course_assignments/User/completeAll/${s.members[0].userid}`, {
      token: s.owner.token,
    });
    expect(all.status).toBe(200);
    expect(all.body.changed_documents).toBe(3);
    expect(all.body.progress).toMatchObject({ users: 2, completed: 2 });
    const record = (await getAssignment(s.teamAssignment.course_assignmentid)).body;
    expect(entryOf(record, s.members[0].userid).stage_status).toEqual({
      status: 'completed',
      reason: 'manager_override',
    });
    expect(entryOf(record, s.members[0].userid).manager_override_userid).toBe(s.owner.userid);

    const invalidated = await api('PATCH', `/course_assignments/User/invalidateAll/${s.members[0].userid}`, {
      token: s.owner.token,
    });
    expect(invalidated.body.changed_documents).toBe(3);
    expect(invalidated.body.progress).toMatchObject({ completed: 0 });
    expect(
      entryOf((await getAssignment(s.teamAssignment.course_assignmentid)).body, s.members[0].userid, 1).stage_status,
    ).toEqual({ status: 'invalidated', reason: 'manager_override' });

    expect(
      (await api('PATCH', `/course_assignments/Team/completeAll/${s.team.teamid}`, { token: s.members[1].token }))
        .status,
    ).toBe(403);
    const teamAll = await api('PATCH', `/course_assignments/Team/completeAll/${s.team.teamid}`, {
      token: s.owner.token,
    });
    expect(teamAll.status).toBe(200);
    expect(teamAll.body.progress).toMatchObject({ users: 3, completed: 3 });
    // The team's completeAll covers the team's courses only: the solo course stays invalidated.
    expect(
      (
        await api('GET', `/course_assignments/completion/${s.solo.wikiid}/${s.members[0].userid}`, {
          token: s.owner.token,
        })
      ).body.stages[0].stage_status.status,
    ).toBe('invalidated');
    const teamInvalid = await api('PATCH', `/course_assignments/Team/invalidateAll/${s.team.teamid}`, {
      token: s.owner.token,
    });
    expect(teamInvalid.body.progress).toMatchObject({ users: 3, completed: 0 });
    expect((await api('PATCH', '/course_assignments/Team/completeAll/99999999', { token: s.owner.token })).status).toBe(
      404,
    );
  });

  it('POST stage_completions records past completions for managed trainees (201), all or none', async () => {
    const s = await scenario();
    const past = Math.floor(Date.now() / 1000) - 3 * 86400;
    const stranger = await createUser();
    const body = {
      completions: [
        {
          userid: s.members[1].userid,
          doctype: 'guide',
          docid: s.guides[0].guideid,
          init_date: past - 600,
          end_date: past,
          work_log_entryid: 9,
        },
      ],
    };
    expect((await api('POST', '/course_assignments/stage_completions', { token: stranger.token, body })).status).toBe(
      403,
    );
    const recorded = await api('POST', '/course_assignments/stage_completions', { token: s.owner.token, body });
    expect(recorded.status).toBe(201);
    expect(recorded.body.completions[0]).toMatchObject({
      assignee_userid: s.members[1].userid,
      docid: s.guides[0].guideid,
      init_date: past - 600,
      end_date: past,
      work_log_entryid: 9,
      manager_override_userid: s.owner.userid,
    });
    const future = await api('POST', '/course_assignments/stage_completions', {
      token: s.owner.token,
      body: {
        completions: [
          { userid: s.members[1].userid, doctype: 'guide', docid: s.guides[1].guideid, end_date: past + 10 * 86400 },
        ],
      },
    });
    expect(future.status).toBe(422);
    const notAssigned = await api('POST', '/course_assignments/stage_completions', {
      token: s.owner.token,
      body: {
        completions: [
          { userid: s.members[1].userid, doctype: 'guide', docid: s.guides[1].guideid },
          { userid: s.members[1].userid, doctype: 'guide', docid: s.soloGuide.guideid },
        ],
      },
    });
    expect(notAssigned.status).toBe(422);
    expect(notAssigned.body.errors[0]).toMatchObject({ field: 'completions[1].docid', code: 'not_assigned' });
    // All or none: the first entry was not recorded either.
    expect(
      entryOf((await getAssignment(s.teamAssignment.course_assignmentid)).body, s.members[1].userid, 1).stage_status
        .status,
    ).toBe('pending');
  });
});

describe('concurrency', () => {
  it('members completing at once: the stored counters equal the rows', async () => {
    const admin = await loginAdmin();
    const members = await Promise.all(Array.from({ length: 8 }, () => createUser()));
    const owner = await createUser();
    const team = await createTeam({ owner: owner.userid, members: members.map((m) => m.userid) });
    const guide = await stageGuide();
    const course = await createCourse({ stages: [{ doctype: 'guide', docid: guide.guideid }] });
    await assign({ wikiid: course.wikiid, teamid: team.teamid });
    const results = await Promise.all(members.map((member) => complete(member, guide.guideid)));
    expect(results.map((r) => r.status)).toEqual(members.map(() => 200));
    const report = await api('GET', `/course_assignments/completion/course/${course.wikiid}`, { token: admin });
    expect(report.body.progress).toEqual({
      users: 9,
      completed: 8,
      in_progress: 0,
      not_started: 1,
      completion_percentage: 88.89,
    });
    const teamSummary = await api('GET', `/course_assignments/teamSummaries/${team.teamid}`, { token: admin });
    expect(teamSummary.body).toMatchObject({ users: 9, completed: 8 });
  });

  it('the same course assigned to the same user at once: exactly one assignment', async () => {
    const admin = await loginAdmin();
    const course = await createCourse();
    const user = await createUser();
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        api('POST', '/course_assignments', { token: admin, body: { wikiid: course.wikiid, userid: user.userid } }),
      ),
    );
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(5);
    expect((await api('GET', `/courses/${course.wikiid}`, { token: admin })).body.assigneeCount).toBe(1);
  });
});
