/**
 * The assignments crawler against the test stack: assignment items, claims, team index, training
 * rows with their stage snapshots and list places, coverage, enrollment, stage completions (with
 * the release they were made under) and training summaries equal the stored items attribute by
 * attribute (minus ASSIGNMENT_UNEXPOSED); a refusing source is reported, not fatal.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, type TestUser } from '../support/api.ts';
import { assign, createCourse, releaseGuide, stageGuide } from '../support/courses.ts';
import { createTeam } from '../support/compliance.ts';
import { createWiki } from '../support/wikis.ts';
import { assignmentsCrawler, ASSIGNMENT_UNEXPOSED } from '../../infra/ops/migrate/resources/assignments.ts';
import { crawledAndStored, httpSource, runCrawler, type CrawlRun } from './support/crawl-harness.ts';

let admin: string;
let course: any;
let trainee: TestUser;
let owner: TestUser;
let member: TestUser;
let teamid: number;
let userAssignment: any;
let teamAssignment: any;
let guideid: number;
let run: CrawlRun;

async function ok(promise: Promise<{ status: number; text: string; body: any }>) {
  const response = await promise;
  if (response.status >= 300) throw new Error(`${response.status} ${response.text}`);
  return response.body;
}

beforeAll(async () => {
  admin = await loginAdmin();
  let guide: { guideid: number };
  let wiki: { wikiid: number };
  [guide, wiki, owner] = await Promise.all([stageGuide(), createWiki(), createUser()]);
  guideid = guide.guideid;
  [trainee, member] = await Promise.all([createUser(), createUser()]);
  teamid = await createTeam(owner, [trainee, member]);
  await releaseGuide(guideid, 'major');
  course = await createCourse({
    stages: [
      { doctype: 'guide', docid: guideid, strictness: 'major' },
      { doctype: 'wiki', docid: wiki.wikiid, frequency_quantity: 1, frequency_unit: 'year' },
    ],
  });
  userAssignment = await assign({ wikiid: course.wikiid, userid: trainee.userid, due_within: 86_400 * 30 });
  teamAssignment = await assign({ wikiid: course.wikiid, teamid });
  await ok(api('PATCH', `/course_assignments/complete/guide/${guideid}`, { token: trainee.token, body: {} }));
  await ok(api('PATCH', `/course_assignments/complete/wiki/${wiki.wikiid}`, { token: trainee.token, body: {} }));
  await ok(api('PATCH', `/course_assignments/start/wiki/${wiki.wikiid}`, { token: member.token }));
  const ours = new Set([`course-assignments:${course.wikiid}`, 'training-summaries']);
  run = await runCrawler(assignmentsCrawler, httpSource(admin), {
    known: { course: [course.wikiid] },
    onlyUnits: (unit) => ours.has(unit),
  });
});

const ignored = {
  TrainingRow: Object.keys(ASSIGNMENT_UNEXPOSED.TrainingRow),
  StageCompletion: Object.keys(ASSIGNMENT_UNEXPOSED.StageCompletion),
};

/** Summaries of other test files' users change meanwhile: only ours are compared. */
const isOurs = (item: Record<string, unknown>) =>
  item.sk !== 'TRAINSUMMARY' ||
  [`USER#${trainee.userid}`, `USER#${member.userid}`, `TEAM#${teamid}`].includes(String(item.pk));

describe('assignments crawler', () => {
  it('carries assignments, rows, places, coverage, enrollment, completions and summaries as stored', async () => {
    const { crawled, stored } = await crawledAndStored(run, isOurs, ignored);
    expect(crawled).toEqual(stored);
    const entities = new Set(crawled.map((item) => item.entity));
    for (const entity of [
      'CourseAssignment',
      'Unique',
      'TeamAssignmentRef',
      'TrainingRow',
      'SortedRef',
      'CourseCoverage',
      'CourseEnrollment',
      'StageCompletion',
    ]) {
      expect(entities).toContain(entity);
    }
    // The trainee's own row, and one per team member (the owner is a member too).
    const rows = crawled.filter((item) => item.entity === 'TrainingRow');
    expect(rows.map((row) => row.userid).sort()).toEqual(
      [trainee.userid, trainee.userid, member.userid, owner.userid].sort(),
    );
    expect(
      run.items.get(`USER#${trainee.userid}|COVERAGE#COURSE#${String(course.wikiid).padStart(12, '0')}`),
    ).toMatchObject({ count: 2 });
    const summaries = crawled.filter((item) => item.sk === 'TRAINSUMMARY');
    expect(summaries).toHaveLength(3);
    const completion = run.items.get(`USER#${trainee.userid}|TRAINDOC#guide#${String(guideid).padStart(12, '0')}`);
    expect(completion).toMatchObject({ release_major: expect.any(Number) });
  });

  it('moves the assignment and completion counters past the ids it carried', () => {
    expect(run.ids.get('course_assignment')).toBeGreaterThanOrEqual(
      Math.max(userAssignment.course_assignmentid, teamAssignment.course_assignmentid),
    );
    expect(run.ids.get('stage_completion')).toBeGreaterThan(0);
    expect(run.completed.sort()).toEqual([`course-assignments:${course.wikiid}`, 'training-summaries']);
    expect(run.unexposed.map((entry) => entry.what)).toContain('cancelled course assignments and their rows');
  });

  it('reports a source that refuses course assignments as unexposed, without failing', async () => {
    const denied = await runCrawler(assignmentsCrawler, httpSource(admin, { deny: ['/course_assign'] }), {
      known: { course: [course.wikiid] },
    });
    expect(denied.items.size).toBe(0);
    expect(denied.unexposed).toEqual([expect.objectContaining({ what: 'course assignments and progress' })]);
  });
});
