/**
 * The approvals crawler against the test stack: a process (with its search words), its
 * attachment to a category page, a signed and approved request (with its approved-revision
 * record) and a pending one (with its document's open-request claim) equal the stored items
 * attribute by attribute (minus APPROVAL_UNEXPOSED); no outbox event is carried; a refusing
 * source is reported, not fatal.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, type TestUser } from '../support/api.ts';
import { attach, createCategory, createGuide, createProcess, createTeam } from '../support/compliance.ts';
import { approvalsCrawler, APPROVAL_UNEXPOSED } from '../../infra/ops/migrate/resources/approvals.ts';
import { crawledAndStored, httpSource, runCrawler, type CrawlRun } from './support/crawl-harness.ts';

let admin: string;
let processid: number;
let categoryid: number;
let approved: any;
let pending: any;
let run: CrawlRun;

async function ok(promise: Promise<{ status: number; text: string; body: any }>) {
  const response = await promise;
  if (response.status >= 300) throw new Error(`${response.status} ${response.text}`);
  return response.body;
}

const requestApproval = (token: string, guide: { guideid: number; revisionid: number }) =>
  ok(
    api('POST', '/approvals/requests', {
      token,
      query: { revisionid: guide.revisionid },
      body: { doctype: 'guide', docid: guide.guideid, notes: 'New torque values' },
    }),
  );

beforeAll(async () => {
  admin = await loginAdmin();
  const [author, signer, owner] = (await Promise.all([
    createUser({ privileges: ['Author'] }),
    createUser(),
    createUser(),
  ])) as TestUser[];
  const teamid = await createTeam(owner!, [signer!]);
  processid = (await createProcess([{ teamid, quorum: 1, name: 'Quality' }])).approval_processid;
  const category = await createCategory();
  categoryid = category.wikiid;
  await attach(category.wikiid, processid);
  const [first, second] = await Promise.all([
    createGuide(author!.token, category.title),
    createGuide(author!.token, category.title),
  ]);
  approved = await requestApproval(author!.token, first);
  await ok(
    api('POST', `/approvals/request/sign/${approved.approval_requestid}`, {
      token: signer!.token,
      body: { meaning: 'approve', reason: 'Checked', password: signer!.password },
    }),
  );
  pending = await requestApproval(author!.token, second);
  const ours = new Set([
    'approval-processes',
    'approval-attachments',
    `approval_request:${approved.approval_requestid}`,
    `approval_request:${pending.approval_requestid}`,
  ]);
  run = await runCrawler(approvalsCrawler, httpSource(admin), {
    known: { guide: [first.guideid, second.guideid] },
    onlyUnits: (unit) => ours.has(unit),
  });
});

/** The items of this file's process, page and requests (other test files change theirs meanwhile). */
function isOurs(item: Record<string, unknown>): boolean {
  if (item.entity === 'ApprovalProcess' || item.entity === 'ApprovalAttachment') {
    return item.approval_processid === processid;
  }
  if (item.entity === 'SearchToken') return item.pk === 'SEARCH#PROCESS' && item.id === processid;
  return true;
}

describe('approvals crawler', () => {
  it('carries the process, its attachment, and the requests with their claims and approval as stored', async () => {
    const { crawled, stored } = await crawledAndStored(run, isOurs, APPROVAL_UNEXPOSED);
    expect(crawled).toEqual(stored);
    const entities = crawled.map((item) => item.entity).sort();
    expect(entities.filter((entity) => entity !== 'SearchToken')).toEqual([
      'ApprovalAttachment',
      'ApprovalProcess',
      'ApprovalRequest',
      'ApprovalRequest',
      'ApprovedRevision',
      'OpenApprovalRequest',
    ]);
    expect(run.items.get(`APPROVAL_ATTACHMENT#WIKI#${categoryid}|ATTACHMENT`)).toMatchObject({
      approval_processid: processid,
    });
    expect([...run.items.values()].some((item) => item.entity === 'OutboxEvent')).toBe(false);
    const signed = run.items.get(`APPROVAL_REQUEST#${approved.approval_requestid}|REQUEST`)!;
    expect(signed).toMatchObject({ status: 'approved', signatures: [expect.objectContaining({ meaning: 'approve' })] });
  });

  it('moves the counters past the ids it carried', () => {
    expect(run.ids.get('approval_process')).toBeGreaterThanOrEqual(processid);
    expect(run.ids.get('approval_request')).toBeGreaterThanOrEqual(pending.approval_requestid);
  });

  it('reports a source that refuses approvals as unexposed, without failing', async () => {
    const denied = await runCrawler(approvalsCrawler, httpSource(admin, { deny: ['/approvals'] }));
    expect(denied.items.size).toBe(0);
    expect(denied.unexposed).toEqual([expect.objectContaining({ what: 'approvals' })]);
  });
});
