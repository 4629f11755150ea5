/**
 * The courses crawler against the test stack: a course's page, current revision, title claim,
 * course item (stages, flags, aggregates, list places), assessments and search words equal the
 * stored items attribute by attribute (minus COURSE_UNEXPOSED); a refusing source is reported.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin } from '../support/api.ts';
import { assign, createCourse, createTeam, stageGuide } from '../support/courses.ts';
import { createWiki } from '../support/wikis.ts';
import { coursesCrawler, COURSE_UNEXPOSED } from '../../infra/ops/migrate/resources/courses.ts';
import { crawledAndStored, httpSource, runCrawler, storedPartition, type CrawlRun } from './support/crawl-harness.ts';

let admin: string;
let edited: any;
let firstRevision: number;
let disabled: any;
let run: CrawlRun;

beforeAll(async () => {
  admin = await loginAdmin();
  const [guide, wiki, team, trainee] = await Promise.all([stageGuide(), createWiki(), createTeam(), createUser()]);
  const created = await createCourse({
    contents: 'Read the **manual** first.',
    stages: [
      { doctype: 'guide', docid: guide.guideid, strictness: 'major', frequency_quantity: 6, frequency_unit: 'month' },
      { doctype: 'wiki', docid: wiki.wikiid, assessment: { teamid: team.teamid } },
    ],
  });
  firstRevision = created.revisionid;
  const patched = await api('PATCH', `/courses/${created.wikiid}`, {
    token: admin,
    query: { revisionid: created.revisionid },
    body: { title: `${created.title} (2026)`, contents: 'Read the manual, then sign.' },
  });
  if (patched.status !== 200) throw new Error(`patch: ${patched.status} ${patched.text}`);
  edited = patched.body;
  await assign({ wikiid: edited.wikiid, userid: trainee.userid });
  disabled = await createCourse({ enabled: false, publish_date: 1_700_000_000 });
  const ours = new Set([`course:${edited.wikiid}`, `course:${disabled.wikiid}`]);
  run = await runCrawler(coursesCrawler, httpSource(admin), { onlyUnits: (unit) => ours.has(unit) });
});

const ignored = { Course: Object.keys(COURSE_UNEXPOSED.Course) };

describe('courses crawler', () => {
  it('carries the items of a course as stored: page, revision, claim, course, assessment, search, places', async () => {
    const { crawled, stored } = await crawledAndStored(run, () => true, ignored);
    expect(crawled.length).toBeGreaterThan(10);
    expect(crawled).toEqual(stored);
    const entities = new Set(crawled.map((item) => item.entity));
    for (const entity of ['Wiki', 'WikiRevision', 'Course', 'StageAssessment', 'SearchToken', 'SortedRef']) {
      expect(entities).toContain(entity);
    }
    const course = run.items.get(`WIKI#${edited.wikiid}|COURSE`)!;
    expect(course).toMatchObject({ assignee_count: 1, rows_total: 1, enabled: 1 });
    expect(run.items.get(`WIKI#${disabled.wikiid}|COURSE`)).toMatchObject({ enabled: 0, publish_date: 1_700_000_000 });
  });

  it('leaves out only revisions whose contents API 2.0 does not show, and says so', async () => {
    const stored = await storedPartition(`WIKI#${edited.wikiid}`);
    const crawledKeys = [...run.items.keys()].filter((key) => key.startsWith(`WIKI#${edited.wikiid}|`));
    const storedKeys = stored.map((item) => `${item.pk}|${item.sk}`);
    const missing = storedKeys.filter((key) => !crawledKeys.includes(key));
    expect(missing).toEqual([`WIKI#${edited.wikiid}|REV#${String(firstRevision).padStart(12, '0')}`]);
    expect(run.unexposed.map((entry) => entry.what)).toContain('course page revisions before the current one');
  });

  it('moves the wiki, revision, stage and assessment counters past the ids it carried', () => {
    expect(run.ids.get('wiki')).toBeGreaterThanOrEqual(Math.max(edited.wikiid, disabled.wikiid));
    expect(run.ids.get('revision')).toBeGreaterThanOrEqual(edited.revisionid);
    expect(run.ids.get('course_stage')).toBeGreaterThanOrEqual(
      Math.max(...edited.stages.map((stage: any) => stage.course_stageid)),
    );
    expect(run.ids.get('stage_assessment')).toBeGreaterThanOrEqual(edited.stages[1].stage_assessmentid);
    expect(run.completed.sort()).toEqual([`course:${edited.wikiid}`, `course:${disabled.wikiid}`].sort());
  });

  it('reports a source that refuses courses as unexposed, without failing', async () => {
    const denied = await runCrawler(coursesCrawler, httpSource(admin, { deny: ['/courses'] }));
    expect(denied.items.size).toBe(0);
    expect(denied.unexposed).toEqual([expect.objectContaining({ what: 'courses' })]);
  });
});
