/**
 * Courses as other code sees them: module stages (usage items, the player's enrollment rule),
 * stage edits reaching every trainee's stored row, deletion cancelling assignments.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin } from '../support/api.ts';
import { createImport } from '../support/modules.ts';
import { assign, createCourse, createTeam, entryOf, getAssignment, stageGuide } from '../support/courses.ts';

describe('external training module stages', () => {
  it("a module stage writes its usage; assignments enroll trainees (the player's rule); completion by doctype", async () => {
    const admin = await loginAdmin();
    const { moduleid } = await createImport(admin, { title: 'Forklift basics' });
    const course = await createCourse({ stages: [{ doctype: 'external_training_module', docid: moduleid }] });
    expect(course.stages[0]).toMatchObject({
      doctype: 'external_training_module',
      docid: moduleid,
      doc_url: `/ExternalTrainingModule/${moduleid}`,
    });
    const usage = await api('GET', `/external_training_modules/${moduleid}/usage`, { token: admin });
    expect(usage.body.usage).toEqual([{ doctype: 'course', wikiid: course.wikiid, title: course.title }]);

    const member = await createUser();
    const outsider = await createUser();
    const team = await createTeam({ members: [member.userid] });
    const assignment = await assign({ wikiid: course.wikiid, teamid: team.teamid });
    // Assigned (no current version yet: 404) versus not assigned (403).
    expect((await api('GET', `/external_training_modules/${moduleid}/player`, { token: member.token })).status).toBe(
      404,
    );
    expect((await api('GET', `/external_training_modules/${moduleid}/player`, { token: outsider.token })).status).toBe(
      403,
    );

    // A module stage is earned in the player: the learner cannot mark it done (decision 271); a manager can.
    const self = await api('PATCH', `/course_assignments/complete/external_training_module/${moduleid}`, {
      token: member.token,
      body: {},
    });
    expect(self.status).toBe(403);
    const done = await api('PATCH', `/course_assignments/complete/external_training_module/${moduleid}`, {
      token: admin,
      body: { userid: member.userid },
    });
    expect(done.status).toBe(200);
    expect(entryOf((await getAssignment(assignment.course_assignmentid)).body, member.userid).stage_status).toEqual({
      status: 'completed',
      reason: 'manager_override',
    });

    // Covered twice (team and alone): leaving the team keeps the enrollment; cancelling the last removes it.
    const solo = await assign({ wikiid: course.wikiid, userid: member.userid });
    expect((await api('DELETE', `/teams/${team.teamid}/users/${member.userid}`, { token: admin })).status).toBe(204);
    expect((await api('GET', `/external_training_modules/${moduleid}/player`, { token: member.token })).status).toBe(
      404,
    );
    expect((await api('DELETE', `/course_assignments/${solo.course_assignmentid}`, { token: admin })).status).toBe(200);
    expect((await api('GET', `/external_training_modules/${moduleid}/player`, { token: member.token })).status).toBe(
      403,
    );

    // Dropping the stage drops the usage.
    const guide = await stageGuide();
    const changed = await api('PATCH', `/courses/${course.wikiid}`, {
      token: admin,
      query: { revisionid: course.revisionid },
      body: { stages: [{ doctype: 'guide', docid: guide.guideid }] },
    });
    expect(changed.status).toBe(200);
    expect((await api('GET', `/external_training_modules/${moduleid}/usage`, { token: admin })).body.usage).toEqual([]);
  });
});

describe('course changes reach the trainees', () => {
  it('a stage added to a course shows in every active row (counts and status)', async () => {
    const admin = await loginAdmin();
    const first = await stageGuide();
    const course = await createCourse({ stages: [{ doctype: 'guide', docid: first.guideid }] });
    const trainee = await createUser();
    await assign({ wikiid: course.wikiid, userid: trainee.userid });
    await api('PATCH', `/course_assignments/complete/guide/${first.guideid}`, { token: trainee.token, body: {} });
    const row = async () =>
      (await api('GET', `/course_assignees/course/${course.wikiid}/users`, { token: admin })).body.response[0];
    expect(await row()).toMatchObject({ total_stages: 1, completed_stages: 1, status: 'Completed' });
    expect((await api('GET', `/courses/${course.wikiid}`, { token: admin })).body.completionPercent).toBe(100);

    const second = await stageGuide();
    const changed = await api('PATCH', `/courses/${course.wikiid}`, {
      token: admin,
      query: { revisionid: course.revisionid },
      body: {
        stages: [
          { doctype: 'guide', docid: first.guideid, course_stageid: course.stages[0].course_stageid },
          { doctype: 'guide', docid: second.guideid },
        ],
      },
    });
    expect(changed.status).toBe(200);
    expect(await row()).toMatchObject({ total_stages: 2, completed_stages: 1, status: 'In Progress' });
    expect(changed.body.completionPercent).toBe(0);
  });

  it('deleting a course cancels its active assignments (their records stay)', async () => {
    const admin = await loginAdmin();
    const guide = await stageGuide();
    const course = await createCourse({ stages: [{ doctype: 'guide', docid: guide.guideid }] });
    const trainee = await createUser();
    const assignment = await assign({ wikiid: course.wikiid, userid: trainee.userid });
    expect((await api('DELETE', `/courses/${course.wikiid}`, { token: admin })).status).toBe(204);
    const record = await getAssignment(assignment.course_assignmentid);
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({ cancelled: 1, cancellation_reason: 'Course deleted', course: null });
    const start = await api('PATCH', `/course_assignments/start/guide/${guide.guideid}`, { token: trainee.token });
    expect(start.status).toBe(422);
  });
});
