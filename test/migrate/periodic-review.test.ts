/**
 * The periodic-review crawler against the test stack: a schedule, its documents (claim and search
 * words), signed reviews and change requests equal the stored items attribute by attribute
 * (minus PERIODIC_REVIEW_UNEXPOSED); a refusing source is reported, not fatal.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, uniqueSuffix, type TestUser } from '../support/api.ts';
import { createCategory, createGuide, editGuide } from '../support/compliance.ts';
import { periodicReviewCrawler, PERIODIC_REVIEW_UNEXPOSED } from '../../infra/ops/migrate/resources/periodic-review.ts';
import { crawledAndStored, httpSource, runCrawler, type CrawlRun } from './support/crawl-harness.ts';

let admin: string;
let author: TestUser;
let reviewer: TestUser;
let schedule: any;
let run: CrawlRun;

async function ok(promise: Promise<{ status: number; text: string; body: any }>) {
  const response = await promise;
  if (response.status >= 300) throw new Error(`${response.status} ${response.text}`);
  return response.body;
}

const review = (body: Record<string, unknown>) =>
  ok(
    api('POST', '/periodic_review/review', {
      token: reviewer.token,
      body: { outcome: 'approved', password: reviewer.password, ...body },
    }),
  );

beforeAll(async () => {
  admin = await loginAdmin();
  [author, reviewer] = await Promise.all([createUser({ privileges: ['Author'] }), createUser()]);
  const category = (await createCategory()).title;
  schedule = await ok(
    api('POST', '/periodic_review', {
      token: admin,
      body: {
        name: `Annual review ${uniqueSuffix()}`,
        frequency_quantity: 12,
        frequency_unit: 'month',
        reviewer_userid: reviewer.userid,
      },
    }),
  );
  const [first, second] = await Promise.all([
    createGuide(author.token, category, { title: `Clean the mixer ${uniqueSuffix()}` }),
    createGuide(author.token, category, { title: `Oil the press ${uniqueSuffix()}` }),
  ]);
  const added = await ok(
    api('POST', '/periodic_review/documents', {
      token: admin,
      body: {
        prsid: schedule.prsid,
        documents: [
          { doctype: 'guide', docid: first.guideid },
          { doctype: 'guide', docid: second.guideid },
        ],
      },
    }),
  );
  const [firstEntry, secondEntry] = added.documents;
  // One document: changes asked for, then the guide is edited and the change approved (resolved).
  await review({
    prdid: firstEntry.prdid,
    revisionid: first.revisionid,
    outcome: 'changes_requested',
    notes: 'Step 3 is out of date',
  });
  const edited = await editGuide(author.token, first);
  await review({ prdid: firstEntry.prdid, revisionid: edited });
  // The other: changes asked for, still open.
  await review({
    prdid: secondEntry.prdid,
    revisionid: second.revisionid,
    outcome: 'changes_requested',
    notes: 'Add photos',
  });
  const ours = new Set([
    `review_schedule:${schedule.prsid}`,
    `periodic_reviews:user:${reviewer.userid}`,
    `periodic_reviews:user:${author.userid}`,
  ]);
  run = await runCrawler(periodicReviewCrawler, httpSource(admin), {
    known: { user: [reviewer.userid, author.userid] },
    onlyUnits: (unit) => ours.has(unit),
  });
});

describe('periodic-review crawler', () => {
  it('carries the schedule, documents, signed reviews and change requests as stored', async () => {
    const { crawled, stored } = await crawledAndStored(run, () => true, {
      ReviewDocument: Object.keys(PERIODIC_REVIEW_UNEXPOSED.ReviewDocument),
    });
    expect(crawled).toEqual(stored);
    const count = (entity: string) => crawled.filter((item) => item.entity === entity).length;
    expect(count('ReviewSchedule')).toBe(1);
    expect(count('ReviewDocument')).toBe(2);
    expect(count('PeriodicReview')).toBe(3);
    expect(count('ChangeRequest')).toBe(2);
    expect(count('Unique')).toBe(2);
    expect(count('SearchToken')).toBeGreaterThan(2);
    expect(
      crawled
        .filter((item) => item.entity === 'ChangeRequest')
        .map((item) => item.status)
        .sort(),
    ).toEqual(['open', 'resolved']);
  });

  it('moves the counters past the ids it carried and names the audit trail it leaves behind', () => {
    expect(run.ids.get('periodic_review_schedule')).toBeGreaterThanOrEqual(schedule.prsid);
    expect(run.ids.get('periodic_review')).toBeGreaterThan(0);
    expect(run.ids.get('change_request')).toBeGreaterThan(0);
    expect(run.unexposed.map((entry) => entry.what)).toContain('periodic review audit records');
  });

  it('reports a source that refuses periodic review as unexposed, without failing', async () => {
    const denied = await runCrawler(periodicReviewCrawler, httpSource(admin, { deny: ['/periodic_review'] }));
    expect(denied.items.size).toBe(0);
    expect(denied.unexposed).toEqual([expect.objectContaining({ what: 'periodic review' })]);
  });
});
