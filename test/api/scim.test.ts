/**
 * SCIM 2.0 over HTTP (issue 28 §2): the request sequences Okta's and Entra ID's provisioning
 * send (create, get by filter, PATCH replace/add/remove members, deactivate), ETags, and the
 * RFC 7644 errors. Deactivation ends the account's sessions at once and keeps its records.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { AUTH_CACHE_TTL_MS } from '../../shared/http/authenticate.ts';
import { api, createUser, loginAdmin, site, uniqueSuffix, type ApiResponse } from '../support/api.ts';
import { assign, createCourse, entryOf, getAssignment, stageGuide } from '../support/courses.ts';

let admin: string;
let scimToken: string;

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

beforeAll(async () => {
  admin = await loginAdmin();
  const minted = await api('POST', '/admin/api_tokens', {
    token: admin,
    body: { name: 'SCIM tests', scopes: ['scim'] },
  });
  scimToken = minted.body.token;
});

function scim(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return site(method, `/scim/v2${path}`, {
    headers: { authorization: `Bearer ${scimToken}`, 'content-type': 'application/scim+json', ...headers },
    ...(body === undefined ? {} : { body }),
  });
}

function expectScimError(response: ApiResponse, status: number, scimType?: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/scim\+json/);
  expect(response.body).toMatchObject({ schemas: [ERROR], status: String(status) });
  expect(typeof response.body.detail).toBe('string');
  if (scimType) expect(response.body.scimType).toBe(scimType);
}

describe('Okta provisioning', () => {
  it('looks a user up, creates them, reads them, updates them, groups them and deactivates them', async () => {
    const email = `okta.${uniqueSuffix()}@example.com`;
    // 1. Okta asks whether the user exists.
    const lookup = await scim('GET', '/Users', undefined, {});
    expect(lookup.status).toBe(200);
    const none = await site('GET', `/scim/v2/Users`, {
      headers: { authorization: `Bearer ${scimToken}` },
      query: { filter: `userName eq "${email}"`, startIndex: 1, count: 100 },
    });
    expect(none.status).toBe(200);
    expect(none.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(none.body).toMatchObject({ totalResults: 0, Resources: [] });

    // 2. Creates them.
    const created = await scim('POST', '/Users', {
      schemas: [USER],
      userName: email,
      name: { givenName: 'Olga', familyName: 'Kta' },
      emails: [{ primary: true, value: email, type: 'work' }],
      displayName: 'Olga Kta',
      locale: 'en-US',
      externalId: `00u${uniqueSuffix()}`,
      groups: [],
      password: 'ignored-Secret1',
      active: true,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ userName: email, displayName: 'Olga Kta', active: true });
    expect(created.headers.get('etag')).toBe(created.body.meta.version);
    expect(created.headers.get('location')).toBe(created.body.meta.location);
    const id = created.body.id;

    // 3. Finds them by the filter, and a duplicate is 409 uniqueness.
    const found = await site('GET', '/scim/v2/Users', {
      headers: { authorization: `Bearer ${scimToken}` },
      query: { filter: `userName eq "${email.toUpperCase()}"` },
    });
    expect(found.body.totalResults).toBe(1);
    expect(found.body.Resources[0].id).toBe(id);
    expectScimError(await scim('POST', '/Users', { schemas: [USER], userName: email }), 409, 'uniqueness');

    // 4. Okta updates a profile with PUT.
    const put = await scim('PUT', `/Users/${id}`, { ...created.body, displayName: 'Olga K.', meta: undefined });
    expect(put.status).toBe(200);
    expect(put.body.displayName).toBe('Olga K.');

    // 5. Pushes a group and its member, then removes the member.
    const group = await scim('POST', '/Groups', {
      schemas: [GROUP],
      displayName: `Okta ${uniqueSuffix()}`,
      members: [],
    });
    expect(group.status).toBe(201);
    const added = await scim('PATCH', `/Groups/${group.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'add', path: 'members', value: [{ value: id, display: email }] }],
    });
    expect(added.status).toBe(200);
    expect(added.body.members.map((member: { value: string }) => member.value)).toEqual([id]);
    const teams = await api('GET', `/users/${id}`, { token: admin });
    expect(teams.body.teams).toContain(Number(group.body.id));
    const removed = await scim('PATCH', `/Groups/${group.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }],
    });
    expect(removed.status).toBe(200);
    expect(removed.body.members).toEqual([]);

    // 6. Deactivates them.
    const deactivated = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(deactivated.status).toBe(200);
    expect(deactivated.body.active).toBe(false);
  });
});

describe('Entra ID provisioning', () => {
  it('filters by externalId, patches attributes with paths and string booleans, adds and removes members by value', async () => {
    const email = `entra.${uniqueSuffix()}@example.com`;
    const objectId = `e${uniqueSuffix()}`;
    const absent = await site('GET', '/scim/v2/Users', {
      headers: { authorization: `Bearer ${scimToken}` },
      query: { filter: `externalId eq "${objectId}"` },
    });
    expect(absent.body.totalResults).toBe(0);
    const created = await scim('POST', '/Users', {
      schemas: [USER, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      externalId: objectId,
      userName: email,
      active: true,
      displayName: 'Eve Ntra',
      emails: [{ primary: true, type: 'work', value: email }],
      name: { formatted: 'Eve Ntra', familyName: 'Ntra', givenName: 'Eve' },
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { employeeNumber: `E-${objectId}` },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const byExternal = await site('GET', '/scim/v2/Users', {
      headers: { authorization: `Bearer ${scimToken}` },
      query: { filter: `externalId eq "${objectId}"` },
    });
    expect(byExternal.body.Resources.map((user: { id: string }) => user.id)).toEqual([id]);

    const patched = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', path: 'displayName', value: 'Eve N.' },
        { op: 'Add', path: 'name.formatted', value: 'Eve N.' },
        { op: 'Replace', path: 'emails[type eq "work"].value', value: email },
      ],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.displayName).toBe('Eve N.');

    const group = await scim('POST', '/Groups', { schemas: [GROUP], displayName: `Entra ${uniqueSuffix()}` });
    const other = await createUser();
    const add = await scim('PATCH', `/Groups/${group.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: id }, { value: String(other.userid) }] }],
    });
    expect(add.body.members.map((member: { value: string }) => member.value).sort()).toEqual(
      [id, String(other.userid)].sort(),
    );
    // Sent again (Entra retries): nothing changes, no error.
    const again = await scim('PATCH', `/Groups/${group.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: id }] }],
    });
    expect(again.status).toBe(200);
    const remove = await scim('PATCH', `/Groups/${group.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Remove', path: 'members', value: [{ value: id }] }],
    });
    expect(remove.body.members.map((member: { value: string }) => member.value)).toEqual([String(other.userid)]);
    const listed = await site('GET', '/scim/v2/Groups', {
      headers: { authorization: `Bearer ${scimToken}` },
      query: { filter: `displayName eq "${group.body.displayName}"`, excludedAttributes: 'members' },
    });
    expect(listed.body.totalResults).toBe(1);
    expect(listed.body.Resources[0].members).toBeUndefined();

    const disabled = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(disabled.body.active).toBe(false);
  });
});

describe('deprovisioning', () => {
  it('ends the sessions at once, refuses the login, and keeps the account and its audit trail', async () => {
    const user = await createUser();
    expect((await api('GET', '/user', { token: user.token })).status).toBe(200);
    const deleted = await scim('DELETE', `/Users/${user.userid}`);
    expect(deleted.status).toBe(204);
    // Another function's warm container may honour what it cached for up to AUTH_CACHE_TTL_MS
    // (decision 106; as deployed, and in verify:deploy's one process per function).
    await new Promise((resolve) => setTimeout(resolve, AUTH_CACHE_TTL_MS + 100));
    expect((await api('GET', '/user', { token: user.token })).status).toBe(401);
    const login = await api('POST', '/user/token', {
      headers: { 'x-app-id': 'stepwise-tests' },
      body: { email: user.email, password: user.password },
    });
    expect(login.status).toBe(401);
    // Deleted for SCIM: 404 on every route and in no list; the account and its audit trail stay.
    expectScimError(await scim('GET', `/Users/${user.userid}`), 404);
    expectScimError(
      await scim('PATCH', `/Users/${user.userid}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', path: 'active', value: true }],
      }),
      404,
    );
    expectScimError(await scim('PUT', `/Users/${user.userid}`, { schemas: [USER], userName: user.email }), 404);
    expectScimError(await scim('DELETE', `/Users/${user.userid}`), 404);
    const byName = await site('GET', '/scim/v2/Users', {
      headers: { authorization: `Bearer ${scimToken}` },
      query: { filter: `userName eq "${user.email}"` },
    });
    expect(byName.body.totalResults).toBe(0);
    const all = await site('GET', '/scim/v2/Users', {
      headers: { authorization: `Bearer ${scimToken}` },
      query: { filter: `userName co "${user.email}"` },
    });
    expect(all.body.totalResults).toBe(0);
    const account = await api('GET', `/users/${user.userid}`, { token: admin });
    expect(account.status).toBe(200);
    const audit = await api('GET', `/audit/users/${user.userid}`, { token: admin });
    expect(audit.body.records.at(-1)).toMatchObject({ action: 'user.deprovisioned', actor_userid: null });
    // Its email stays the account's: provisioning it again is a conflict, not a takeover of its records.
    expectScimError(await scim('POST', '/Users', { schemas: [USER], userName: user.email }), 409, 'uniqueness');
  });

  it('active false keeps the User readable and re-enables; a later DELETE (Entra after soft delete) deletes it', async () => {
    const user = await createUser();
    const disabled = await scim('PATCH', `/Users/${user.userid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(disabled.body.active).toBe(false);
    const still = await scim('GET', `/Users/${user.userid}`);
    expect(still.body.active).toBe(false);
    const enabled = await scim('PATCH', `/Users/${user.userid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', path: 'active', value: true }],
    });
    expect(enabled.body.active).toBe(true);
    await scim('PATCH', `/Users/${user.userid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect((await scim('DELETE', `/Users/${user.userid}`)).status).toBe(204);
    expectScimError(await scim('GET', `/Users/${user.userid}`), 404);
  });
});

describe('Group rename and removal', () => {
  it('Okta renames with PATCH replace displayName, Entra with a no-path value; PUT renames too; a taken name is 409', async () => {
    const tag = uniqueSuffix();
    const group = await scim('POST', '/Groups', { schemas: [GROUP], displayName: `Ren ${tag}`, members: [] });
    const okta = await scim('PATCH', `/Groups/${group.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { id: group.body.id, displayName: `Ren2 ${tag}` } }],
    });
    expect(okta.status).toBe(200);
    expect(okta.body.displayName).toBe(`Ren2 ${tag}`);
    const entra = await scim('PATCH', `/Groups/${group.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: 'displayName', value: `Ren3 ${tag}` }],
    });
    expect(entra.body.displayName).toBe(`Ren3 ${tag}`);
    const put = await scim('PUT', `/Groups/${group.body.id}`, {
      schemas: [GROUP],
      displayName: `Ren4 ${tag}`,
      members: [],
    });
    expect(put.body.displayName).toBe(`Ren4 ${tag}`);
    const teams = await api('GET', '/teams', { token: admin, query: { limit: 1000 } });
    const team = teams.body.find((entry: { teamid: number }) => entry.teamid === Number(group.body.id));
    expect(team.name).toBe(`Ren4 ${tag}`);
    const byName = await site('GET', '/scim/v2/Groups', {
      headers: { authorization: `Bearer ${scimToken}` },
      query: { filter: `displayName eq "Ren4 ${tag}"` },
    });
    expect(byName.body.Resources.map((found: { id: string }) => found.id)).toEqual([group.body.id]);
    const other = await scim('POST', '/Groups', { schemas: [GROUP], displayName: `Other ${tag}` });
    expectScimError(
      await scim('PATCH', `/Groups/${other.body.id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', path: 'displayName', value: `ren4 ${tag}` }],
      }),
      409,
      'uniqueness',
    );
  });

  it('DELETE removes the team: its members leave it and keep their records; 404 thereafter', async () => {
    const member = await createUser();
    const group = await scim('POST', '/Groups', {
      schemas: [GROUP],
      displayName: `Gone ${uniqueSuffix()}`,
      members: [{ value: String(member.userid) }],
    });
    expect(group.body.members).toHaveLength(1);
    const teamid = Number(group.body.id);
    expect((await api('GET', `/users/${member.userid}`, { token: admin })).body.teams).toContain(teamid);
    expectScimError(await scim('DELETE', `/Groups/${group.body.id}`, undefined, { 'if-match': 'W/"stale"' }), 412);
    const deleted = await scim('DELETE', `/Groups/${group.body.id}`);
    expect(deleted.status).toBe(204);
    expectScimError(await scim('GET', `/Groups/${group.body.id}`), 404);
    expectScimError(await scim('DELETE', `/Groups/${group.body.id}`), 404);
    expectScimError(
      await scim('PATCH', `/Groups/${group.body.id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'add', path: 'members', value: [{ value: String(member.userid) }] }],
      }),
      404,
    );
    const listed = await site('GET', '/scim/v2/Groups', {
      headers: { authorization: `Bearer ${scimToken}` },
      query: { filter: `displayName eq "${group.body.displayName}"` },
    });
    expect(listed.body.totalResults).toBe(0);
    expect((await api('GET', `/teams/${teamid}`, { token: admin })).status).toBe(404);
    const after = await api('GET', `/users/${member.userid}`, { token: admin });
    expect(after.status).toBe(200);
    expect(after.body.teams).not.toContain(teamid);
    const teams = await api('GET', '/teams', { token: admin, query: { limit: 1000, order: 'DESC' } });
    expect(teams.body.map((team: { teamid: number }) => team.teamid)).not.toContain(teamid);
    // The name is free again.
    expect((await scim('POST', '/Groups', { schemas: [GROUP], displayName: group.body.displayName })).status).toBe(201);
  });

  it("a removed team's course assignment lets go of its members, whose completions stay", async () => {
    const member = await createUser();
    const group = await scim('POST', '/Groups', {
      schemas: [GROUP],
      displayName: `Trained ${uniqueSuffix()}`,
      members: [{ value: String(member.userid) }],
    });
    const teamid = Number(group.body.id);
    const guide = await stageGuide();
    const course = await createCourse({ stages: [{ doctype: 'guide', docid: guide.guideid }] });
    const assignment = await assign({ wikiid: course.wikiid, teamid });
    expect(assignment.completion_status.map((entry: { userid: number }) => entry.userid)).toEqual([member.userid]);
    await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, { token: member.token, body: {} });

    expect((await scim('DELETE', `/Groups/${group.body.id}`)).status).toBe(204);
    const after = await getAssignment(assignment.course_assignmentid);
    expect(after.status).toBe(200);
    // What names the team still shows its name.
    expect(after.body.assignee_name).toBe(group.body.displayName);
    expect(after.body.completion_status).toEqual([]);
    const solo = await assign({ wikiid: course.wikiid, userid: member.userid });
    expect(entryOf(solo, member.userid).stage_status).toEqual({ status: 'completed', reason: 'completed' });
    // A removed team takes no new assignment.
    const other = await createCourse({ stages: [{ doctype: 'guide', docid: guide.guideid }] });
    const again = await api('POST', '/course_assignments', { token: admin, body: { wikiid: other.wikiid, teamid } });
    expect(again.status, again.text).toBe(422);
    expect(again.text).toMatch(/no team/i);
  });
});

describe('filters, paging and ETags', () => {
  it('co, sw, and, or over userName; startIndex and count', async () => {
    const tag = uniqueSuffix();
    for (const n of [1, 2, 3]) {
      const response = await scim('POST', '/Users', { schemas: [USER], userName: `pg${n}.${tag}@example.com` });
      expect(response.status).toBe(201);
    }
    const query = (filter: string, extra: Record<string, number> = {}) =>
      site('GET', '/scim/v2/Users', { headers: { authorization: `Bearer ${scimToken}` }, query: { filter, ...extra } });
    expect((await query(`userName co "${tag}"`)).body.totalResults).toBe(3);
    expect((await query(`userName sw "pg2.${tag}"`)).body.totalResults).toBe(1);
    const both = await query(`userName co "${tag}" and (userName sw "pg1" or userName ew "pg3.${tag}@example.com")`);
    expect(both.body.totalResults).toBe(2);
    const page = await query(`userName co "${tag}"`, { startIndex: 2, count: 1 });
    expect(page.body).toMatchObject({ totalResults: 3, startIndex: 2, itemsPerPage: 1 });
    expect(page.body.Resources[0].userName).toBe(`pg2.${tag}@example.com`);
    expectScimError(await query('userName gt "a"'), 400, 'invalidFilter');
    expectScimError(await query('userName eq'), 400, 'invalidFilter');
  });

  it('If-Match with an old version is 412; with the current one the change is made', async () => {
    const created = await scim('POST', '/Users', { schemas: [USER], userName: `etag.${uniqueSuffix()}@example.com` });
    const first = created.headers.get('etag')!;
    const changed = await scim(
      'PATCH',
      `/Users/${created.body.id}`,
      {
        schemas: [PATCH],
        Operations: [{ op: 'replace', path: 'displayName', value: 'Changed' }],
      },
      { 'if-match': first },
    );
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(first);
    const stale = await scim(
      'PATCH',
      `/Users/${created.body.id}`,
      {
        schemas: [PATCH],
        Operations: [{ op: 'replace', path: 'displayName', value: 'Stale' }],
      },
      { 'if-match': first },
    );
    expectScimError(stale, 412);
    expect((await scim('GET', `/Users/${created.body.id}`)).body.displayName).toBe('Changed');
  });
});

describe('RFC 7644 errors and access', () => {
  it('401 without a token, 403 for a token without the scim scope or a user, 404, 400s', async () => {
    expectScimError(await site('GET', '/scim/v2/Users'), 401);
    const other = await api('POST', '/admin/api_tokens', { token: admin, body: { name: 'No scim', scopes: ['full'] } });
    expectScimError(
      await site('GET', '/scim/v2/Users', { headers: { authorization: `Bearer ${other.body.token}` } }),
      403,
    );
    expectScimError(await site('GET', '/scim/v2/Users', { token: admin }), 403);
    expectScimError(await scim('GET', '/Users/999999999'), 404);
    expectScimError(await scim('POST', '/Users', { schemas: [USER] }), 400, 'invalidValue');
    expectScimError(
      // Not user 1: SCIM refuses an Admin account before reading the body (decision 259).
      await scim('PATCH', `/Users/${(await createUser()).userid}`, { schemas: [PATCH], Operations: [{ op: 'move' }] }),
      400,
      'invalidSyntax',
    );
    expectScimError(await scim('DELETE', '/Groups/999999999'), 404);
  });

  it('discovery: ServiceProviderConfig, Schemas, ResourceTypes', async () => {
    const config = await scim('GET', '/ServiceProviderConfig');
    expect(config.body).toMatchObject({
      patch: { supported: true },
      filter: { supported: true },
      etag: { supported: true },
    });
    const schemas = await scim('GET', '/Schemas');
    expect(schemas.body.Resources.map((schema: { id: string }) => schema.id)).toContain(USER);
    const types = await scim('GET', '/ResourceTypes');
    expect(types.body.Resources.map((type: { endpoint: string }) => type.endpoint)).toEqual(['/Users', '/Groups']);
  });
});
