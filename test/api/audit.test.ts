/**
 * The audit trail endpoints: a document's and a user's history (paged) and chain verification,
 * which finds a record tampered with directly in DynamoDB.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { api, createUser, loginAdmin, uniqueSuffix, type TestUser } from '../support/api.ts';
import { attach, createProcess, createTeam } from '../support/compliance.ts';
import { localDb } from '../support/local-db.ts';

let admin: string;
let signer: TestUser;
let processid: number;

const seqKey = (subject: string, seq: number) => ({
  pk: `AUDIT#${subject}`,
  sk: `SEQ#${String(seq).padStart(12, '0')}`,
});

/** A wiki page with three audit records: process attached, approval requested, signed. */
async function auditedPage() {
  const page = await api('POST', '/wikis', {
    token: admin,
    body: { namespace: 'WIKI', title: `Audited ${uniqueSuffix()}`, contents: 'Lockout, tagout.' },
  });
  await attach(page.body.wikiid, processid);
  const request = await api('POST', '/approvals/requests', {
    token: admin,
    query: { revisionid: page.body.revisionid },
    body: { doctype: 'wiki', docid: page.body.wikiid },
  });
  const signed = await api('POST', `/approvals/request/sign/${request.body.approval_requestid}`, {
    token: signer.token,
    body: { meaning: 'approve', reason: 'Matches the procedure', password: signer.password },
  });
  expect(signed.status).toBe(200);
  return page.body as { wikiid: number; revisionid: number };
}

beforeAll(async () => {
  admin = await loginAdmin();
  signer = await createUser();
  const team = await createTeam(signer, []);
  processid = (await createProcess([{ teamid: team, quorum: 1 }])).approval_processid;
});

describe('audit history', () => {
  it("lists a document's records oldest first, paged, each chained to the previous one", async () => {
    const page = await auditedPage();
    const history = await api('GET', `/audit/documents/wiki/${page.wikiid}`, { token: admin });
    expect(history.status).toBe(200);
    expect(history.body).toMatchObject({ subject: `WIKI#${page.wikiid}`, head_seq: 3 });
    expect(history.body.records.map((r: any) => [r.seq, r.action])).toEqual([
      [1, 'approval.process_attached'],
      [2, 'approval.requested'],
      [3, 'approval.signed'],
    ]);
    const [, requested, signed] = history.body.records;
    expect(signed.previous_hash).toBe(requested.hash);
    expect(signed).toMatchObject({
      actor_userid: signer.userid,
      details: {
        meaning: 'approve',
        reason: 'Matches the procedure',
        revisionid: page.revisionid,
        printed_name: expect.any(String),
        old: { status: 'pending' },
        new: { status: 'approved' },
      },
    });
    expect(signed.details.revision_hash).toBe(requested.details.revision_hash);
    const second = await api('GET', `/audit/documents/wiki/${page.wikiid}`, {
      token: admin,
      query: { limit: 1, offset: 1 },
    });
    expect(second.body.records.map((r: any) => r.seq)).toEqual([2]);
    const past = await api('GET', `/audit/documents/wiki/${page.wikiid}`, { token: admin, query: { offset: 3 } });
    expect(past.body.records).toEqual([]);
  });

  it("lists a user's records, and verifies the user's chain", async () => {
    await auditedPage();
    const history = await api('GET', `/audit/users/${signer.userid}`, { token: admin, query: { limit: 200 } });
    expect(history.status).toBe(200);
    expect(history.body.records.at(-1)).toMatchObject({
      subject: `USER#${signer.userid}`,
      action: 'approval.signed',
      actor_userid: signer.userid,
    });
    const verified = await api('GET', `/audit/users/${signer.userid}/verify`, { token: admin });
    expect(verified.body).toMatchObject({
      subject: `USER#${signer.userid}`,
      valid: true,
      first_broken_seq: null,
      records_checked: history.body.head_seq,
    });
  });

  it('is for Admins (403) and 404 for a subject that neither exists nor has records', async () => {
    const page = await auditedPage();
    expect((await api('GET', `/audit/documents/wiki/${page.wikiid}`, { token: signer.token })).status).toBe(403);
    expect((await api('GET', `/audit/documents/wiki/${page.wikiid}/verify`, { token: signer.token })).status).toBe(403);
    expect((await api('GET', '/audit/documents/guide/99999999', { token: admin })).status).toBe(404);
    expect((await api('GET', '/audit/users/99999999/verify', { token: admin })).status).toBe(404);
    // A user who exists but has no records has an empty, valid chain.
    const quiet = await createUser();
    expect((await api('GET', `/audit/users/${quiet.userid}`, { token: admin })).body).toMatchObject({
      head_seq: 0,
      records: [],
    });
  });
});

describe('chain verification', () => {
  it('reports an intact chain as valid', async () => {
    const page = await auditedPage();
    const verified = await api('GET', `/audit/documents/wiki/${page.wikiid}/verify`, { token: admin });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({
      subject: `WIKI#${page.wikiid}`,
      valid: true,
      records_checked: 3,
      head_seq: 3,
      first_broken_seq: null,
      problem: null,
    });
  });

  it('detects a record edited directly in DynamoDB and names its seq', async () => {
    const page = await auditedPage();
    const subject = `WIKI#${page.wikiid}`;
    // Someone with table access turns the approval into a rejection after the fact.
    await localDb().send(
      new UpdateCommand({
        TableName: 'stepwise',
        Key: seqKey(subject, 3),
        UpdateExpression: 'SET details.meaning = :reject',
        ExpressionAttributeValues: { ':reject': 'reject' },
      }),
    );
    const verified = await api('GET', `/audit/documents/wiki/${page.wikiid}/verify`, { token: admin });
    expect(verified.body).toMatchObject({ valid: false, first_broken_seq: 3, problem: 'hash_mismatch' });
  });

  it('detects a deleted record, and a forged record whose hash was recomputed (the next link breaks)', async () => {
    const deletedPage = await auditedPage();
    await localDb().send(new DeleteCommand({ TableName: 'stepwise', Key: seqKey(`WIKI#${deletedPage.wikiid}`, 2) }));
    const gap = await api('GET', `/audit/documents/wiki/${deletedPage.wikiid}/verify`, { token: admin });
    expect(gap.body).toMatchObject({ valid: false, first_broken_seq: 2, problem: 'missing_record' });

    const forgedPage = await auditedPage();
    const subject = `WIKI#${forgedPage.wikiid}`;
    const history = await api('GET', `/audit/documents/wiki/${forgedPage.wikiid}`, { token: admin });
    const { createHash } = await import('node:crypto');
    const { canonicalJson } = await import('../../shared/domain/canonical-json.ts');
    const { hash, ...unsigned } = { ...history.body.records[1], actor_userid: 424242 };
    const forgedHash = createHash('sha256').update(canonicalJson(unsigned)).digest('hex');
    await localDb().send(
      new UpdateCommand({
        TableName: 'stepwise',
        Key: seqKey(subject, 2),
        UpdateExpression: 'SET actor_userid = :actor, #hash = :hash',
        ExpressionAttributeNames: { '#hash': 'hash' },
        ExpressionAttributeValues: { ':actor': 424242, ':hash': forgedHash },
      }),
    );
    const forged = await api('GET', `/audit/documents/wiki/${forgedPage.wikiid}/verify`, { token: admin });
    expect(forged.body).toMatchObject({ valid: false, first_broken_seq: 3, problem: 'link_mismatch' });
  });
});

describe('OpenAPI', () => {
  it('publishes the compliance routes with their bodies, and marks the beyond-spec ones', async () => {
    const document = (await api('GET', '/openapi.json')).body;
    const verify = document.paths['/audit/documents/{doctype}/{docid}/verify'].get;
    expect(verify['x-beyond-spec']).toBe(true);
    expect(verify.responses['200'].content['application/json'].schema.properties).toHaveProperty('first_broken_seq');
    expect(document.paths['/approvals/requests'].post['x-beyond-spec']).toBe(true);
    const sign = document.paths['/approvals/request/sign/{approval_requestid}'].post;
    expect(sign['x-beyond-spec']).toBeUndefined();
    expect(sign.requestBody.content['application/json'].schema.properties).toHaveProperty('signing_token');
    expect(sign.responses['200'].content['application/json'].schema.properties).toHaveProperty('signatures');
    expect(
      document.paths['/periodic_review/review'].post.requestBody.content['application/json'].example,
    ).toMatchObject({ outcome: 'approved' });
  });
});
