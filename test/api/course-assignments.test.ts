import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin } from '../support/api.ts';
import {
  assign,
  assignedTrainee,
  createCourse,
  createTeam,
  entryOf,
  getAssignment,
  stageGuide,
} from '../support/courses.ts';

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

describe('GET /course_assignments/{id}: the record field by field (spec tables)', () => {
  it('a user assignment: Course assignment, Stage entry, Stage completion, Stage and Course fields', async () => {
    const admin = await loginAdmin();
    const { guide, course, trainee, assignment } = await assignedTrainee(
      { strictness: 'major', frequency_quantity: 1, frequency_unit: 'year' },
      { due_within: 86400 * 14 },
    );
    expect(assignment.course_assignmentid).toBeGreaterThan(0);
    const done = await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, {
      token: trainee.token,
      body: {},
    });
    expect(done.status).toBe(200);

    const response = await getAssignment(assignment.course_assignmentid);
    expect(response.status).toBe(200);
    const record = response.body;
    // Course assignment
    expect(Object.keys(record).sort()).toEqual(
      [
        'course_assignmentid',
        'wikiid',
        'assignee_userid',
        'assignee_teamid',
        'assignee_name',
        'assignee_url',
        'completion_status',
        'user_completion_status',
        'due_within',
        'created_date',
        'cancelled',
        'cancelled_at',
        'cancelled_by',
        'cancellation_reason',
        'course',
      ].sort(),
    );
    expect(record.course_assignmentid).toBe(assignment.course_assignmentid);
    expect(record.wikiid).toBe(course.wikiid);
    expect(record.assignee_userid).toBe(trainee.userid);
    expect(record.assignee_teamid).toBeNull();
    expect(typeof record.assignee_name).toBe('string');
    expect(record.assignee_url).toMatch(new RegExp(`^/User/${trainee.userid}/`));
    expect(record.user_completion_status).toBeNull();
    expect(record.due_within).toBe(86400 * 14);
    expect(Number.isInteger(record.created_date)).toBe(true);
    expect(record.cancelled).toBe(0);
    expect(record.cancelled_at).toBeNull();
    expect(record.cancelled_by).toBeNull();
    expect(record.cancellation_reason).toBeNull();
    expect(record.completion_status).toHaveLength(1);
    expect(record.completion_status[0].userid).toBe(trainee.userid);
    // Stage entry
    const entry = entryOf(record, trainee.userid);
    expect(Object.keys(entry).sort()).toEqual(
      [
        'course_stageid',
        'due_date',
        'doc_url',
        'last_completion',
        'manager_override_userid',
        'stage',
        'status',
        'title',
        'stage_status',
      ].sort(),
    );
    expect(entry.course_stageid).toBe(course.stages[0].course_stageid);
    expect(entry.due_date).toBe(record.created_date + 86400 * 14);
    expect(entry.doc_url).toBe(course.stages[0].doc_url);
    expect(entry.manager_override_userid).toBeNull();
    expect(entry.status).toBe('completed');
    expect(entry.title).toBe(guide.title);
    expect(entry.stage_status).toEqual({ status: 'completed', reason: 'completed' });
    // Stage completion (last_completion)
    const last = entry.last_completion;
    expect(Object.keys(last).sort()).toEqual(
      [
        'course_assignment_stage_completionid',
        'doctype',
        'docid',
        'course_stage_doc_revisionid',
        'assignee_userid',
        'manager_override_userid',
        'init_date',
        'end_date',
        'work_log_entryid',
      ].sort(),
    );
    expect(last.course_assignment_stage_completionid).toBeGreaterThan(0);
    expect(last).toMatchObject({
      doctype: 'guide',
      docid: guide.guideid,
      course_stage_doc_revisionid: guide.revisionid,
      assignee_userid: trainee.userid,
      manager_override_userid: null,
      work_log_entryid: null,
    });
    expect(Number.isInteger(last.init_date)).toBe(true);
    expect(last.end_date).toBeGreaterThanOrEqual(last.init_date);
    // Stage
    expect(entry.stage).toMatchObject({
      course_stageid: entry.course_stageid,
      docid: guide.guideid,
      doctype: 'guide',
      doc_url: entry.doc_url,
      orderby: 0,
      strictness: 'major',
      title: guide.title,
      frequency_quantity: 1,
      frequency_unit: 'year',
      completion: null,
    });
    expect(entry.stage).not.toHaveProperty('status');
    // Course object: the assigned user's statuses on course.stages
    expect(record.course).toMatchObject({
      wikiid: course.wikiid,
      namespace: 'COURSE',
      title: course.title,
      revisionid: course.revisionid,
      url: `/Courses/View/${course.wikiid}`,
      enabled: 1,
    });
    expect(record.course.contents_json.type).toBe('doc');
    expect(typeof record.course.contents_rendered).toBe('string');
    expect(record.course.stages[0]).toMatchObject({
      status: 'completed',
      stage_status: { status: 'completed', reason: 'completed' },
    });
    expect(record.course.assigneeCount).toBe(1);
    expect(record.course.completionPercent).toBe(100);

    // The deprecated team variant answers the same shape.
    const deprecated = await api('GET', `/course_assignments/team/${assignment.course_assignmentid}`, { token: admin });
    expect(deprecated.status).toBe(200);
    expect(deprecated.body).toEqual(record);
  });

  it('a team assignment covers the members, members who join later, and lets go of those who leave', async () => {
    const admin = await loginAdmin();
    const owner = await createUser();
    const first = await createUser();
    const later = await createUser();
    const team = await createTeam({ owner: owner.userid, members: [first.userid] });
    const guide = await stageGuide();
    const course = await createCourse({ stages: [{ doctype: 'guide', docid: guide.guideid }] });
    const assignment = await assign({ wikiid: course.wikiid, teamid: team.teamid, due_within: 3600 }, owner.token);
    expect(assignment).toMatchObject({ assignee_teamid: team.teamid, assignee_userid: null, assignee_name: team.name });
    expect(assignment.assignee_url).toMatch(new RegExp(`^/Team/Contributions/${team.teamid}/`));
    expect(sorted(assignment.completion_status.map((entry: { userid: number }) => entry.userid))).toEqual(
      sorted([owner.userid, first.userid]),
    );

    // The first member completes; then a new member joins and is covered from then on.
    await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, { token: first.token, body: {} });
    expect((await api('PUT', `/teams/${team.teamid}/users/${later.userid}`, { token: owner.token })).status).toBe(200);
    const withLater = (await getAssignment(assignment.course_assignmentid)).body;
    expect(sorted(withLater.completion_status.map((entry: { userid: number }) => entry.userid))).toEqual(
      sorted([owner.userid, first.userid, later.userid]),
    );
    expect(entryOf(withLater, later.userid).stage_status).toEqual({ status: 'pending', reason: 'not_started' });
    expect(entryOf(withLater, first.userid).stage_status).toEqual({ status: 'completed', reason: 'completed' });
    const teamIndex = await api('GET', `/teams/${team.teamid}/course_assignments`, { token: owner.token });
    expect(teamIndex.body).toContainEqual(
      expect.objectContaining({
        course_assignmentid: assignment.course_assignmentid,
        cancelled: 0,
        wikiid: course.wikiid,
      }),
    );

    // The later member is enrolled (the module player's rule reads this) — and sees only their own entry.
    const own = await getAssignment(assignment.course_assignmentid, later.token);
    expect(own.status).toBe(200);
    expect(own.body.completion_status.map((entry: { userid: number }) => entry.userid)).toEqual([later.userid]);

    // The first member leaves: no longer covered, but their completion stays on record.
    expect((await api('DELETE', `/teams/${team.teamid}/users/${first.userid}`, { token: owner.token })).status).toBe(
      204,
    );
    const afterLeave = (await getAssignment(assignment.course_assignmentid)).body;
    expect(afterLeave.completion_status.map((entry: { userid: number }) => entry.userid)).not.toContain(first.userid);
    expect((await getAssignment(assignment.course_assignmentid, first.token)).status).toBe(403);
    const solo = await assign({ wikiid: course.wikiid, userid: first.userid });
    expect(entryOf(solo, first.userid).stage_status).toEqual({ status: 'completed', reason: 'completed' });
    expect(admin).toBeTruthy();
  });
});

describe('POST /course_assignments', () => {
  it('409 with the active assignment when the course is already assigned to the assignee', async () => {
    const { course, trainee, assignment } = await assignedTrainee();
    const again = await api('POST', '/course_assignments', {
      token: await loginAdmin(),
      body: { wikiid: course.wikiid, userid: trainee.userid },
    });
    expect(again.status).toBe(409);
    expect(again.body.course_assignmentid).toBe(assignment.course_assignmentid);
  });

  it('is for managers: Admins, a team owner for the team and its members (403 otherwise)', async () => {
    const owner = await createUser();
    const member = await createUser();
    const stranger = await createUser();
    const team = await createTeam({ owner: owner.userid, members: [member.userid] });
    const course = await createCourse();
    expect(
      (
        await api('POST', '/course_assignments', {
          token: stranger.token,
          body: { wikiid: course.wikiid, userid: member.userid },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await api('POST', '/course_assignments', {
          token: member.token,
          body: { wikiid: course.wikiid, teamid: team.teamid },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await api('POST', '/course_assignments', {
          token: owner.token,
          body: { wikiid: course.wikiid, userid: stranger.userid },
        })
      ).status,
    ).toBe(403);
    const byOwner = await api('POST', '/course_assignments', {
      token: owner.token,
      body: { wikiid: course.wikiid, userid: member.userid },
    });
    expect(byOwner.status).toBe(201);
  });

  it('422: one assignee exactly, known course, user and team', async () => {
    const admin = await loginAdmin();
    const course = await createCourse();
    const user = await createUser();
    const team = await createTeam();
    const both = await api('POST', '/course_assignments', {
      token: admin,
      body: { wikiid: course.wikiid, userid: user.userid, teamid: team.teamid },
    });
    expect(both.status).toBe(422);
    const neither = await api('POST', '/course_assignments', { token: admin, body: { wikiid: course.wikiid } });
    expect(neither.status).toBe(422);
    expect(neither.body.errors).toContainEqual(expect.objectContaining({ field: 'userid', code: 'missing_field' }));
    expect(
      (await api('POST', '/course_assignments', { token: admin, body: { wikiid: 99999999, userid: user.userid } })).body
        .errors[0],
    ).toMatchObject({ field: 'wikiid', code: 'not_found' });
    expect(
      (await api('POST', '/course_assignments', { token: admin, body: { wikiid: course.wikiid, userid: 99999999 } }))
        .status,
    ).toBe(422);
    expect(
      (await api('POST', '/course_assignments', { token: admin, body: { wikiid: course.wikiid, teamid: 99999999 } }))
        .status,
    ).toBe(422);
    expect(
      (
        await api('POST', '/course_assignments', {
          token: admin,
          body: { wikiid: course.wikiid, userid: user.userid, due_within: -5 },
        })
      ).status,
    ).toBe(422);
  });
});

describe('DELETE /course_assignments/{id}', () => {
  it('cancels: 200 with the record (cancelled=1, cancelled_at, cancelled_by, cancellation_reason); again → 409', async () => {
    const admin = await loginAdmin();
    const me = (await api('GET', '/user', { token: admin })).body;
    const { course, trainee, assignment } = await assignedTrainee();
    const cancelled = await api('DELETE', `/course_assignments/${assignment.course_assignmentid}`, {
      token: admin,
      body: { cancellation_reason: 'Obsolete' },
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      course_assignmentid: assignment.course_assignmentid,
      cancelled: 1,
      cancelled_by: me.userid,
      cancellation_reason: 'Obsolete',
      assignee_userid: trainee.userid,
    });
    expect(cancelled.body.cancelled_at).toBeGreaterThanOrEqual(assignment.created_date);
    expect(cancelled.body.completion_status[0].userid).toBe(trainee.userid);
    expect(cancelled.body.course.assigneeCount).toBe(0);
    const again = await api('DELETE', `/course_assignments/${assignment.course_assignmentid}`, { token: admin });
    expect(again.status).toBe(409);
    expect(again.body.cancelled).toBe(1);
    // The trainee is no longer assigned; the course may be assigned to them again.
    const start = await api('PATCH', `/course_assignments/start/guide/${course.stages[0].docid}`, {
      token: trainee.token,
    });
    expect(start.status).toBe(422);
    expect(start.body.errors[0].code).toBe('not_assigned');
    expect(
      (
        await api('POST', '/course_assignments', {
          token: admin,
          body: { wikiid: course.wikiid, userid: trainee.userid },
        })
      ).status,
    ).toBe(201);
    // Assignments are training records: each change is in the trainee's audit trail.
    const audit = await api('GET', `/audit/users/${trainee.userid}`, { token: admin, query: { limit: 200 } });
    const mine = audit.body.records.filter(
      (record: { details: { wikiid?: number } }) => record.details.wikiid === course.wikiid,
    );
    expect(mine.map((record: { action: string }) => record.action)).toEqual([
      'course.assigned',
      'course.assignment_cancelled',
      'course.assigned',
    ]);
    expect(mine[1]).toMatchObject({
      actor_userid: me.userid,
      details: { course_assignmentid: assignment.course_assignmentid, cancellation_reason: 'Obsolete' },
    });
  });

  it('only managers cancel (403); unknown id 404; a team cancel updates the team index', async () => {
    const owner = await createUser();
    const member = await createUser();
    const team = await createTeam({ owner: owner.userid, members: [member.userid] });
    const course = await createCourse();
    const assignment = await assign({ wikiid: course.wikiid, teamid: team.teamid });
    expect(
      (await api('DELETE', `/course_assignments/${assignment.course_assignmentid}`, { token: member.token })).status,
    ).toBe(403);
    expect((await api('DELETE', '/course_assignments/99999999', { token: owner.token })).status).toBe(404);
    const cancelled = await api('DELETE', `/course_assignments/${assignment.course_assignmentid}`, {
      token: owner.token,
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ cancelled: 1, assignee_teamid: team.teamid });
    const teamIndex = await api('GET', `/teams/${team.teamid}/course_assignments`, { token: owner.token });
    expect(teamIndex.body).toContainEqual(
      expect.objectContaining({ course_assignmentid: assignment.course_assignmentid, cancelled: 1 }),
    );
  });
});

describe('GET /course_assignments/{id} access', () => {
  it('401 anonymous, 403 for a stranger, 404 unknown', async () => {
    const { assignment } = await assignedTrainee();
    const stranger = await createUser();
    expect((await api('GET', `/course_assignments/${assignment.course_assignmentid}`)).status).toBe(401);
    expect((await getAssignment(assignment.course_assignmentid, stranger.token)).status).toBe(403);
    expect((await getAssignment(99999999)).status).toBe(404);
  });
});
