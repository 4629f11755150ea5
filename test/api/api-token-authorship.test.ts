/**
 * Content written by a site API token (decision 244): stored with userid 0 and the token that
 * wrote it, shown as the token (a service principal: its name), never as a gone or dangling
 * user, also after the token is revoked; another token is not its writer.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { auditSubject, readAuditChain } from '../../shared/db/audit.ts';
import { getCourses } from '../../shared/db/entities/course.ts';
import { api, createTeam, loginAdmin } from '../support/api.ts';
import { category, createGuide } from './guide-fixtures.ts';

let admin: string;

beforeAll(async () => {
  process.env.DDB_ENDPOINT = inject('ddbEndpoint');
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  reloadConfig();
  admin = await loginAdmin();
});

async function mint(name: string) {
  const response = await api('POST', '/admin/api_tokens', { token: admin, body: { name, scopes: ['full'] } });
  expect(response.status).toBe(201);
  return response.body as { tokenid: string; token: string; name: string };
}

const as = (token: { token: string }) => ({ headers: { authorization: `api ${token.token}` } });

describe('authorship of what a token writes', () => {
  it('a guide shows the token as its author, in the answer, on GET and after the token is revoked', async () => {
    const bot = await mint('Importer bot');
    const created = await api('POST', '/guides', {
      ...as(bot),
      body: { category: await category(), type: 'how-to', title: 'Bolt the guard' },
    });
    expect(created.status).toBe(201);
    const principal = { userid: 0, username: 'Importer bot', reputation: 0, privileges: [], teams: [] };
    expect(created.body.author).toMatchObject(principal);
    const read = await api('GET', `/guides/${created.body.guideid}`, { token: admin });
    expect(read.body.author).toMatchObject(principal);
    expect(read.body.author.username).not.toBe('Deleted user');
    expect((await api('DELETE', `/admin/api_tokens/${bot.tokenid}`, { token: admin })).status).toBe(204);
    const after = await api('GET', `/guides/${created.body.guideid}`, { token: admin });
    expect(after.body.author).toMatchObject(principal);
  });

  it('a comment shows the token; only that token edits or deletes it as its writer', async () => {
    const writer = await mint('Feedback sync');
    const other = await mint('Other sync');
    const guide = await api('POST', '/guides', {
      token: admin,
      body: { category: await category(), type: 'how-to', title: 'Check the belt' },
    });
    const posted = await api('POST', `/comments/guide/${guide.body.guideid}`, {
      ...as(writer),
      body: { text: 'Imported from the line log.' },
    });
    expect(posted.status).toBe(201);
    expect(posted.body.author).toMatchObject({ userid: 0, username: 'Feedback sync' });
    const read = await api('GET', `/comments/${posted.body.commentid}`, { token: admin });
    expect(read.body.author).toMatchObject({ userid: 0, username: 'Feedback sync' });

    const byOther = await api('PATCH', `/comments/${posted.body.commentid}`, {
      ...as(other),
      body: { text: 'Not mine.' },
    });
    expect(byOther.status).toBe(403);
    const byWriter = await api('PATCH', `/comments/${posted.body.commentid}`, {
      ...as(writer),
      body: { text: 'Imported from the line log (edited).' },
    });
    expect(byWriter.status).toBe(200);
    expect(byWriter.body.author).toMatchObject({ userid: 0, username: 'Feedback sync' });

    // Another (full, so Admin) token deletes it as an Admin would: the audit names the writer token.
    const removed = await api('DELETE', `/comments/${posted.body.commentid}`, as(other));
    expect(removed.status).toBe(204);
    const chain = await readAuditChain(auditSubject.apiToken(writer.tokenid));
    expect(chain.at(-1)).toMatchObject({ action: 'comment.deleted_by_admin', actor_tokenid: other.tokenid });
  });

  it('a wiki page shows the token as its author, where a gone account shows none', async () => {
    const bot = await mint('Wiki sync');
    const title = `Sync page ${Date.now()}`;
    const created = await api('POST', '/wikis', {
      ...as(bot),
      body: { namespace: 'CATEGORY', title, contents: 'Written by the sync.' },
    });
    expect(created.status).toBe(201);
    expect(created.body.author).toMatchObject({ userid: 0, username: 'Wiki sync' });
    const read = await api('GET', `/wikis/CATEGORY/${encodeURIComponent(title)}`, { token: admin });
    expect(read.status).toBe(200);
    expect(read.body.author).toMatchObject({ userid: 0, username: 'Wiki sync' });
  });

  it('a course shows the token as its author', async () => {
    const bot = await mint('LMS import');
    const created = await api('POST', '/courses', {
      ...as(bot),
      body: { title: `Imported course ${Date.now()}`, contents: 'From the LMS.', stages: [] },
    });
    expect(created.status).toBe(201);
    const read = await api('GET', `/courses/${created.body.wikiid}`, { token: admin });
    expect(read.status).toBe(200);
    expect(read.body.author).toMatchObject({ userid: 0, username: 'LMS import' });
    // The course record beside its page names the token too (decision 250).
    const [stored] = await getCourses([created.body.wikiid]);
    expect(stored).toMatchObject({ author_userid: 0, service_author: { tokenid: bot.tokenid, name: 'LMS import' } });
  });
});

describe('releases (decision 244)', () => {
  it("a token's release shows the token as its user, not null", async () => {
    const bot = await mint('Release bot');
    const guide = await api('POST', '/guides', {
      ...as(bot),
      body: { category: await category(), type: 'how-to', title: 'Release me' },
    });
    const published = await api('PUT', `/guides/${guide.body.guideid}/public`, {
      ...as(bot),
      query: { revisionid: guide.body.revisionid },
      body: {},
    });
    expect(published.status).toBe(200);
    const released = await api('POST', '/guides/releases', {
      ...as(bot),
      body: { guideid: guide.body.guideid, release_type: 'major', notes: 'From the sync' },
    });
    expect(released.status).toBe(201);
    const principal = { userid: 0, username: 'Release bot', reputation: 0, privileges: [], teams: [] };
    expect(released.body.userid).toBe(0);
    expect(released.body.user).toMatchObject(principal);
    const listed = await api('GET', `/guides/${guide.body.guideid}/releases`, { token: admin });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain('"username":"Release bot"');
  });
});

describe('a token is not a person (decision 250)', () => {
  it('is refused with 403 where work is done, training taken or a signature given, and nothing is written', async () => {
    const bot = await mint('Line bot');
    const guide = await api('POST', '/guides', {
      token: admin,
      body: { category: await category(), type: 'how-to', title: 'Torque the hub' },
    });
    const attempts: [string, string, unknown][] = [
      ['POST', '/work_log', { guideid: guide.body.guideid, workorderid: 'WO-bot' }],
      ['PUT', '/work_log/1/stepData', { fields: {} }],
      ['POST', '/work_log/1/finish', undefined],
      ['POST', '/user/sync', { actions: [] }],
      ['POST', '/quizzes/sessions/submit', { quizid: 1, response_json: {} }],
      ['POST', '/quizzes/sessions/save', { quizid: 1, response_json: {} }],
      ['POST', '/courses/stage-sign-offs/requests', { stage_assessmentid: 1 }],
      // Signatures: a token has no password nor identity provider to prove a signer with.
      ['PATCH', '/stage-sign-offs/responses', { signoff_requestid: 1 }],
      ['PATCH', '/courses/stage-sign-offs/responses/1/finalize', { password: 'x' }],
      ['POST', '/acknowledgements/1/sign', { password: 'x' }],
      ['POST', '/acknowledgements/1/countersign/1', { password: 'x' }],
      ['POST', '/acknowledgements/intents/5b8f2f0e-3c1d-4f7a-9a51-0d6a3c2b9e41/confirm', { password: 'x' }],
      ['POST', '/approvals/request/sign/1', { password: 'x' }],
      ['POST', '/periodic_review/review', { prdid: 1, revisionid: 1, password: 'x' }],
    ];
    for (const [method, path, body] of attempts) {
      const response = await api(method, path, { ...as(bot), body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.message).toMatch(/not a person/);
    }
    const entries = await api('GET', `/work_log?guideid=${guide.body.guideid}`, { token: admin });
    expect(entries.body.results).toEqual([]);
  });
});

describe("a token's media library is its own (decision 253)", () => {
  it('lists, reads and deletes only what that token uploaded; a person never sees it as theirs', async () => {
    const first = await mint('Media A');
    const second = await mint('Media B');
    const embed = (token: { token: string }, id: string) =>
      api('POST', '/user/media/embeds', { ...as(token), body: { url: `https://www.youtube.com/watch?v=${id}` } });
    const fromFirst = await embed(first, 'aaaaaaaaaaa');
    const fromSecond = await embed(second, 'bbbbbbbbbbb');
    expect(fromFirst.status).toBe(201);
    expect(fromSecond.status).toBe(201);
    const listed = async (token: { token: string }) =>
      ((await api('GET', '/user/media/embeds', as(token))).body as { embedid: number }[]).map((each) => each.embedid);
    expect(await listed(first)).toEqual([fromFirst.body.embedid]);
    expect(await listed(second)).toEqual([fromSecond.body.embedid]);

    const itemPath = (id: number) => `/user/media/GuideEmbedObject/${id}`;
    expect((await api('GET', itemPath(fromFirst.body.embedid), as(second))).status).toBe(403);
    expect((await api('DELETE', itemPath(fromFirst.body.embedid), as(second))).status).toBe(403);
    // userid 0 is nobody's: an Admin's own library does not hold a token's item either.
    expect((await api('DELETE', itemPath(fromFirst.body.embedid), { token: admin })).status).toBe(403);
    expect((await api('GET', itemPath(fromFirst.body.embedid), as(first))).status).toBe(200);

    expect((await api('DELETE', itemPath(fromFirst.body.embedid), as(first))).status).toBe(204);
    expect(await listed(first)).toEqual([]);
    expect(await listed(second)).toEqual([fromSecond.body.embedid]);
  });
});

describe("a token's client guids are its own (decision 250)", () => {
  it('two tokens making comments under one guid make two comments, each answered again by its own', async () => {
    const first = await mint('Sync A');
    const second = await mint('Sync B');
    const guide = await api('POST', '/guides', {
      token: admin,
      body: { category: await category(), type: 'how-to', title: 'Grease the chain' },
    });
    const client_guid = crypto.randomUUID();
    const path = `/comments/guide/${guide.body.guideid}`;
    const byFirst = await api('POST', path, { ...as(first), body: { text: 'From A.', client_guid } });
    expect(byFirst.status).toBe(201);
    // Under userid 0's claims this was a 409 naming A's comment.
    const bySecond = await api('POST', path, { ...as(second), body: { text: 'From B.', client_guid } });
    expect(bySecond.status).toBe(201);
    expect(bySecond.body.commentid).not.toBe(byFirst.body.commentid);
    expect(bySecond.body.author).toMatchObject({ userid: 0, username: 'Sync B' });

    const again = await api('POST', path, { ...as(first), body: { text: 'From A.', client_guid } });
    expect(again.status).toBe(200);
    expect(again.body.commentid).toBe(byFirst.body.commentid);
    const listed = await api('GET', `/comments?client_guid=${client_guid}`, as(second));
    expect(listed.status).toBe(200);
    expect(listed.body.map((comment: { commentid: number }) => comment.commentid)).toEqual([bySecond.body.commentid]);
  });
});

describe('who acted, in a field of its own (decision 260)', () => {
  it("a team's skill requirements set by a token name the token, never userid 0; a person's name them", async () => {
    const bot = await mint('Requirements bot');
    const guide = await createGuide(admin);
    const skill = await api('POST', '/qualifications/skills', {
      token: admin,
      body: { name: `Valves ${guide.guideid}`, guideids: [guide.guideid], recertification_days: 365 },
    });
    expect(skill.status).toBe(201);
    const team = await createTeam();
    const path = `/qualifications/requirements/teams/${team.teamid}`;
    const body = { requirements: [{ skillid: skill.body.skillid, level: 2 }] };
    const set = await api('PUT', path, { ...as(bot), body });
    expect(set.status, set.text).toBe(200);
    expect(set.body.requirements[0]).toMatchObject({
      set_by_userid: null,
      set_by_userid_token: { tokenid: bot.tokenid, name: 'Requirements bot' },
    });
    expect((await api('GET', path, { token: admin })).body.requirements[0].set_by_userid_token.tokenid).toBe(
      bot.tokenid,
    );
    const again = await api('PUT', path, { token: admin, body });
    const adminUserid = (await api('GET', '/user', { token: admin })).body.userid;
    expect(again.body.requirements[0].set_by_userid).toBe(adminUserid);
    expect(again.body.requirements[0]).not.toHaveProperty('set_by_userid_token');
  });
});
