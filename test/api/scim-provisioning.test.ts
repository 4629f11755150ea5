/**
 * SCIM 2.0 as RFC 7643/7644 say (issue 40, decision 284), over HTTP: Microsoft Entra ID's and
 * Okta's provisioning sequences with the request bodies their SCIM guides give (create, get by
 * filter, each PATCH form, deactivate, group membership, rename, delete), userName kept as sent,
 * name parts, every PATCH path applied or refused, attributes/excludedAttributes, discovery by
 * id, ETags that agree between lists and single reads, Group externalId, `.search`, and SCIM
 * errors for unknown paths.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, loginAdmin, site, uniqueSuffix, type ApiResponse } from '../support/api.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const SEARCH = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';

let admin: string;
let scimToken: string;

beforeAll(async () => {
  admin = await loginAdmin();
  const minted = await api('POST', '/admin/api_tokens', {
    token: admin,
    body: { name: `SCIM RFC ${uniqueSuffix()}`, scopes: ['scim'] },
  });
  scimToken = minted.body.token;
});

function scim(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return site(method, `/scim/v2${path}`, {
    headers: { authorization: `Bearer ${scimToken}`, 'content-type': 'application/scim+json', ...headers },
    ...(body === undefined ? {} : { body }),
  });
}

function scimGet(path: string, query: Record<string, string | number>) {
  return site('GET', `/scim/v2${path}`, { headers: { authorization: `Bearer ${scimToken}` }, query });
}

function expectScimError(response: ApiResponse, status: number, scimType?: string) {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/scim\+json/);
  expect(response.body).toMatchObject({ schemas: [ERROR], status: String(status) });
  expect(typeof response.body.detail).toBe('string');
  if (scimType) expect(response.body.scimType).toBe(scimType);
}

function patch(...operations: unknown[]) {
  return { schemas: [PATCH], Operations: operations };
}

describe('Microsoft Entra ID provisioning (the requests of its SCIM validation guide)', () => {
  it('creates with a userName that is no email, finds it by userName, patches each form, disables and deletes', async () => {
    const tag = uniqueSuffix();
    const userName = `Test_User_${tag}`;
    const absent = await scimGet('/Users', { filter: `userName eq "${userName}"` });
    expect(absent.body).toMatchObject({ totalResults: 0, Resources: [] });

    const created = await scim('POST', '/Users', {
      schemas: [USER, ENTERPRISE],
      externalId: `0a21f0f2-${tag}`,
      userName,
      active: true,
      emails: [{ primary: true, type: 'work', value: `Test_User_${tag}@testuser.com` }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      userName,
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      emails: [{ primary: true, type: 'work', value: `Test_User_${tag}@testuser.com` }],
      active: true,
    });
    const id = created.body.id;

    // Entra looks the user up by userName before each create: it finds it, so it does not create again.
    const found = await scimGet('/Users', { filter: `userName eq "${userName}"` });
    expect(found.body.totalResults).toBe(1);
    expect(found.body.Resources[0]).toMatchObject({ id, userName });
    const insensitive = await scimGet('/Users', { filter: `userName eq "${userName.toLowerCase()}"` });
    expect(insensitive.body.Resources.map((user: { id: string }) => user.id)).toEqual([id]);
    expectScimError(
      await scim('POST', '/Users', { schemas: [USER], userName, emails: [{ value: `other.${tag}@testuser.com` }] }),
      409,
      'uniqueness',
    );
    // The account's email is the one of emails: the site's own user routes show it.
    expect((await api('GET', `/users/${id}`, { token: admin })).body.email).toBe(`Test_User_${tag}@testuser.com`);

    // Update user [Multi-valued properties].
    const multi = await scim(
      'PATCH',
      `/Users/${id}`,
      patch(
        { op: 'Replace', path: 'emails[type eq "work"].value', value: `updatedEmail.${tag}@microsoft.com` },
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
      ),
    );
    expect(multi.status, multi.text).toBe(200);
    expect(multi.body.emails).toEqual([{ primary: true, type: 'work', value: `updatedEmail.${tag}@microsoft.com` }]);
    expect(multi.body.name).toMatchObject({ familyName: 'updatedFamilyName', givenName: 'givenName' });
    expect((await api('GET', `/users/${id}`, { token: admin })).body.email).toBe(`updatedEmail.${tag}@microsoft.com`);

    // Update user [Single-valued properties].
    const newName = `5b50642d-${tag}@testuser.com`;
    const single = await scim('PATCH', `/Users/${id}`, patch({ op: 'Replace', path: 'userName', value: newName }));
    expect(single.body.userName).toBe(newName);
    // userName is not the email: the account's email stays the work email.
    expect(single.body.emails[0].value).toBe(`updatedEmail.${tag}@microsoft.com`);
    const byNew = await scimGet('/Users', { filter: `userName eq "${newName}"` });
    expect(byNew.body.Resources.map((user: { id: string }) => user.id)).toEqual([id]);
    expect((await scimGet('/Users', { filter: `userName eq "${userName}"` })).body.totalResults).toBe(0);

    // Disable user, with Entra's string boolean too; then delete: no longer readable.
    const disabled = await scim('PATCH', `/Users/${id}`, patch({ op: 'Replace', path: 'active', value: 'False' }));
    expect(disabled.body.active).toBe(false);
    const again = await scim('PATCH', `/Users/${id}`, patch({ op: 'Replace', path: 'active', value: false }));
    expect(again.body.active).toBe(false);
    expect((await scim('DELETE', `/Users/${id}`)).status).toBe(204);
    expectScimError(await scim('GET', `/Users/${id}`), 404);
    expect((await scimGet('/Users', { filter: `userName eq "${newName}"` })).body.totalResults).toBe(0);
  });

  it('creates a group with an externalId, reads it without members, renames it, adds and removes members, deletes it', async () => {
    const tag = uniqueSuffix();
    const member = await scim('POST', '/Users', {
      schemas: [USER],
      userName: `Member_${tag}`,
      emails: [{ primary: true, type: 'work', value: `member.${tag}@testuser.com` }],
    });
    const group = await scim('POST', '/Groups', {
      schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
      externalId: `8aa1a0c0-${tag}`,
      displayName: `displayName ${tag}`,
      meta: { resourceType: 'Group' },
    });
    expect(group.status, group.text).toBe(201);
    expect(group.body.externalId).toBe(`8aa1a0c0-${tag}`);
    const id = group.body.id;

    const alone = await scimGet(`/Groups/${id}`, { excludedAttributes: 'members' });
    expect(alone.body).toMatchObject({ id, displayName: `displayName ${tag}`, externalId: `8aa1a0c0-${tag}` });
    expect(alone.body.members).toBeUndefined();
    const listed = await scimGet('/Groups', {
      excludedAttributes: 'members',
      filter: `displayName eq "displayName ${tag}"`,
    });
    expect(listed.body.Resources).toHaveLength(1);
    expect(listed.body.Resources[0].members).toBeUndefined();
    // One version whether the members are shown or not, listed or read alone (RFC 7644 §3.14).
    expect(listed.body.Resources[0].meta.version).toBe(alone.body.meta.version);
    expect(alone.headers.get('etag')).toBe(alone.body.meta.version);
    const byExternal = await scimGet('/Groups', { filter: `externalId eq "8aa1a0c0-${tag}"` });
    expect(byExternal.body.Resources.map((found: { id: string }) => found.id)).toEqual([id]);

    // Update Group [Non-member attributes], with the listed If-Match.
    const renamed = await scim(
      'PATCH',
      `/Groups/${id}`,
      patch({ op: 'Replace', path: 'displayName', value: `${tag}updatedDisplayName` }),
      { 'if-match': listed.body.Resources[0].meta.version },
    );
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.displayName).toBe(`${tag}updatedDisplayName`);

    // Update Group [Add Members] / [Remove Members].
    const added = await scim(
      'PATCH',
      `/Groups/${id}`,
      patch({ op: 'Add', path: 'members', value: [{ $ref: null, value: member.body.id }] }),
    );
    expect(added.body.members.map((entry: { value: string }) => entry.value)).toEqual([member.body.id]);
    expect((await scim('GET', `/Users/${member.body.id}`)).body.groups).toEqual([
      expect.objectContaining({ value: id, display: `${tag}updatedDisplayName` }),
    ]);
    const removed = await scim(
      'PATCH',
      `/Groups/${id}`,
      patch({ op: 'Remove', path: 'members', value: [{ $ref: null, value: member.body.id }] }),
    );
    expect(removed.body.members).toEqual([]);

    expect((await scim('DELETE', `/Groups/${id}`)).status).toBe(204);
    expectScimError(await scim('GET', `/Groups/${id}`), 404);
  });
});

describe('Okta provisioning (the requests of its SCIM 2.0 reference)', () => {
  it('creates, reads, replaces the profile with PUT, deactivates; pushes a group, renames it, adds and removes a member', async () => {
    const tag = uniqueSuffix();
    const userName = `test.user.${tag}@okta.local`;
    const none = await scimGet('/Users', { filter: `userName eq "${userName}"`, startIndex: 1, count: 100 });
    expect(none.body.totalResults).toBe(0);
    const created = await scim('POST', '/Users', {
      schemas: [USER],
      userName,
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ primary: true, value: userName, type: 'work' }],
      displayName: 'Test User',
      locale: 'en-US',
      externalId: `00ujl29u0le5T6Aj${tag}`,
      groups: [],
      password: '1mz050nq',
      active: true,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      userName,
      name: { givenName: 'Test', familyName: 'User' },
      displayName: 'Test User',
      locale: 'en-US',
      active: true,
    });
    expect(created.body.password).toBeUndefined();
    const id = created.body.id;
    const read = await scim('GET', `/Users/${id}`);
    expect(read.body).toEqual(created.body);

    const put = await scim('PUT', `/Users/${id}`, {
      schemas: [USER],
      id,
      userName,
      name: { givenName: 'Another', familyName: 'User' },
      emails: [{ primary: true, value: userName, type: 'work' }],
      displayName: 'Another User',
      locale: 'en-US',
      externalId: `00ujl29u0le5T6Aj${tag}`,
      groups: [],
      active: true,
      meta: read.body.meta,
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ name: { givenName: 'Another', familyName: 'User' }, displayName: 'Another User' });

    const group = await scim('POST', '/Groups', { schemas: [GROUP], displayName: `Test SCIMv2 ${tag}`, members: [] });
    const gid = group.body.id;
    const listed = await scimGet('/Groups', {
      filter: `displayName eq "Test SCIMv2 ${tag}"`,
      startIndex: 1,
      count: 100,
    });
    expect(listed.body.Resources.map((found: { id: string }) => found.id)).toEqual([gid]);
    const renamed = await scim(
      'PATCH',
      `/Groups/${gid}`,
      patch({ op: 'replace', value: { id: gid, displayName: `Test SCIMv2 renamed ${tag}` } }),
    );
    expect(renamed.body.displayName).toBe(`Test SCIMv2 renamed ${tag}`);
    const added = await scim(
      'PATCH',
      `/Groups/${gid}`,
      patch({ op: 'add', path: 'members', value: [{ value: id, display: userName }] }),
    );
    expect(added.body.members).toEqual([expect.objectContaining({ value: id, display: 'Another User' })]);
    const removed = await scim('PATCH', `/Groups/${gid}`, patch({ op: 'remove', path: `members[value eq "${id}"]` }));
    expect(removed.body.members).toEqual([]);
    const pushed = await scim('PUT', `/Groups/${gid}`, {
      schemas: [GROUP],
      id: gid,
      displayName: `Test SCIMv2 pushed ${tag}`,
      members: [{ value: id, display: userName }],
    });
    expect(pushed.body.members.map((entry: { value: string }) => entry.value)).toEqual([id]);

    const deactivated = await scim('PATCH', `/Users/${id}`, patch({ op: 'replace', value: { active: false } }));
    expect(deactivated.body.active).toBe(false);
    expect((await scim('DELETE', `/Groups/${gid}`)).status).toBe(204);
  });
});

describe('PATCH by RFC 7644 §3.5.2', () => {
  async function newUser(extra: Record<string, unknown> = {}) {
    const tag = uniqueSuffix();
    const created = await scim('POST', '/Users', {
      schemas: [USER, ENTERPRISE],
      userName: `p_${tag}`,
      displayName: 'Pat Ch',
      name: { givenName: 'Pat', familyName: 'Ch', formatted: 'Pat Ch' },
      emails: [
        { value: `pat.${tag}@example.com`, type: 'work', primary: true },
        { value: `pat.home.${tag}@example.com`, type: 'home' },
      ],
      title: 'Operator',
      phoneNumbers: [{ value: '+1 555 0100', type: 'work' }],
      [ENTERPRISE]: { employeeNumber: `E${tag}`, department: 'Assembly' },
      ...extra,
    });
    expect(created.status, created.text).toBe(201);
    return { tag, id: created.body.id as string, created };
  }

  it('removes displayName, name, emails and active; the account keeps a name and an email', async () => {
    const { id, tag } = await newUser({ userName: `pat.${uniqueSuffix()}@example.com` });
    const removed = await scim(
      'PATCH',
      `/Users/${id}`,
      patch(
        { op: 'remove', path: 'displayName' },
        { op: 'remove', path: 'name' },
        { op: 'remove', path: 'emails[type eq "home"]' },
        { op: 'remove', path: 'active' },
        { op: 'remove', path: `${ENTERPRISE}:department` },
      ),
    );
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.displayName).toBeUndefined();
    expect(removed.body.name).toBeUndefined();
    expect(removed.body.emails).toEqual([{ value: `pat.${tag}@example.com`, type: 'work', primary: true }]);
    expect(removed.body[ENTERPRISE]).toEqual({ employeeNumber: `E${tag}` });
    const all = await scim('PATCH', `/Users/${id}`, patch({ op: 'Remove', path: 'emails' }));
    expect(all.body.emails).toBeUndefined();
    // The account's email is now its email-shaped userName; its name is still shown on the site.
    const account = await api('GET', `/users/${id}`, { token: admin });
    expect(account.body.email).toBe(all.body.userName);
    expect(account.body.username.length).toBeGreaterThan(0);
  });

  it('sets sub-attributes, filtered values, extension attributes and values without a path; ops in any case', async () => {
    const { id, tag } = await newUser();
    const changed = await scim(
      'PATCH',
      `/Users/${id}`,
      patch(
        { op: 'REPLACE', path: 'name.givenName', value: 'Patricia' },
        { op: 'Add', path: 'phoneNumbers[type eq "mobile"].value', value: '+1 555 0199' },
        { op: 'replace', path: 'emails[type eq "home"].primary', value: 'True' },
        { op: 'replace', path: `${ENTERPRISE}:department`, value: 'Paint' },
        { op: 'add', value: { title: 'Lead', 'name.familyName': 'Chester', [ENTERPRISE]: { costCenter: 'C7' } } },
      ),
    );
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.name).toEqual({ givenName: 'Patricia', familyName: 'Chester', formatted: 'Pat Ch' });
    expect(changed.body.phoneNumbers).toEqual([
      { value: '+1 555 0100', type: 'work' },
      { value: '+1 555 0199', type: 'mobile' },
    ]);
    // One primary: the home email is it now, and it is the account's email.
    expect(changed.body.emails).toEqual([
      { value: `pat.${tag}@example.com`, type: 'work', primary: false },
      { value: `pat.home.${tag}@example.com`, type: 'home', primary: true },
    ]);
    expect((await api('GET', `/users/${id}`, { token: admin })).body.email).toBe(`pat.home.${tag}@example.com`);
    expect(changed.body.title).toBe('Lead');
    expect(changed.body[ENTERPRISE]).toEqual({ employeeNumber: `E${tag}`, department: 'Paint', costCenter: 'C7' });
  });

  it('answers a SCIM error for a path it does not keep, a wrong type or a read-only attribute, and changes nothing', async () => {
    const { id } = await newUser();
    const before = await scim('GET', `/Users/${id}`);
    const refused: Array<[unknown, string]> = [
      [{ op: 'replace', path: 'favouriteColour', value: 'blue' }, 'invalidPath'],
      [{ op: 'replace', path: 'name.nickname', value: 'P' }, 'invalidPath'],
      [{ op: 'replace', path: 'displayName[type eq "x"]', value: 'P' }, 'invalidPath'],
      [{ op: 'replace', path: 'urn:example:unknown:User:x', value: 'P' }, 'invalidPath'],
      [{ op: 'replace', value: { shoeSize: 44 } }, 'invalidPath'],
      [{ op: 'replace', path: 'groups', value: [] }, 'mutability'],
      [{ op: 'replace', path: 'active', value: 'maybe' }, 'invalidValue'],
      [{ op: 'replace', path: 'emails[value co "@"', value: 'x' }, 'invalidPath'],
      [{ op: 'replace', path: 'phoneNumbers[value sw "+9"].value', value: '1' }, 'noTarget'],
      [{ op: 'remove', path: 'userName' }, 'invalidValue'],
    ];
    for (const [operation, scimType] of refused) {
      const response = await scim(
        'PATCH',
        `/Users/${id}`,
        patch({ op: 'replace', path: 'title', value: 'Changed' }, operation),
      );
      expectScimError(response, 400, scimType);
    }
    const after = await scim('GET', `/Users/${id}`);
    expect(after.body).toEqual(before.body);
  });
});

describe('reads by RFC 7644 §3.4 and §3.9', () => {
  it('attributes and excludedAttributes on single reads, lists and .search; .search finds as the GET does', async () => {
    const tag = uniqueSuffix();
    const created = await scim('POST', '/Users', {
      schemas: [USER],
      userName: `Reader_${tag}`,
      displayName: 'Rea Der',
      name: { givenName: 'Rea', familyName: 'Der' },
      emails: [{ value: `reader.${tag}@example.com`, primary: true }],
    });
    const id = created.body.id;
    const only = await scimGet(`/Users/${id}`, { attributes: 'userName,name.givenName' });
    expect(only.body).toEqual({
      schemas: [USER],
      id,
      userName: `Reader_${tag}`,
      name: { givenName: 'Rea' },
      meta: created.body.meta,
    });
    expect(only.headers.get('etag')).toBe(created.body.meta.version);
    const without = await scimGet(`/Users/${id}`, { excludedAttributes: 'displayName,emails,groups' });
    expect(without.body.displayName).toBeUndefined();
    expect(without.body.emails).toBeUndefined();
    expect(without.body.groups).toBeUndefined();
    expect(without.body.userName).toBe(`Reader_${tag}`);
    const list = await scimGet('/Users', {
      filter: `name.familyName eq "Der" and userName sw "Reader_${tag}"`,
      attributes: 'userName',
    });
    expect(list.body.Resources).toEqual([{ schemas: [USER], id, userName: `Reader_${tag}`, meta: created.body.meta }]);
    const search = await scim('POST', '/Users/.search', {
      schemas: [SEARCH],
      filter: `userName eq "Reader_${tag}"`,
      excludedAttributes: ['groups'],
      startIndex: 1,
      count: 10,
    });
    expect(search.status, search.text).toBe(200);
    expect(search.body).toMatchObject({ totalResults: 1, startIndex: 1, itemsPerPage: 1 });
    expect(search.body.Resources[0].id).toBe(id);
    expect(search.body.Resources[0].groups).toBeUndefined();
    const group = await scim('POST', '/Groups', {
      schemas: [GROUP],
      displayName: `Search ${tag}`,
      members: [{ value: id }],
    });
    const groups = await scim('POST', '/Groups/.search', {
      schemas: [SEARCH],
      filter: `displayName eq "Search ${tag}"`,
      excludedAttributes: ['members'],
    });
    expect(groups.body.Resources).toHaveLength(1);
    expect(groups.body.Resources[0].members).toBeUndefined();
    expect(groups.body.Resources[0].meta.version).toBe(group.body.meta.version);
    expectScimError(
      await scim('POST', '/Users/.search', { schemas: [SEARCH], filter: 'userName gt "a"' }),
      400,
      'invalidFilter',
    );
  });

  it('/Schemas/{id} and /ResourceTypes/{id}; schemas declare the sub-attributes of groups, members, emails and name', async () => {
    const schemas = await scim('GET', '/Schemas');
    for (const schema of schemas.body.Resources) {
      const one = await scim('GET', `/Schemas/${schema.id}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual(schema);
      expect(schema.meta.location.endsWith(`/Schemas/${schema.id}`)).toBe(true);
    }
    const user = schemas.body.Resources.find((schema: { id: string }) => schema.id === USER);
    const sub = (
      schema: { attributes: Array<{ name: string; subAttributes?: Array<{ name: string }> }> },
      name: string,
    ) =>
      schema.attributes.find((attribute) => attribute.name === name)?.subAttributes?.map((attribute) => attribute.name);
    expect(sub(user, 'groups')).toEqual(['value', '$ref', 'display', 'type']);
    expect(sub(user, 'emails')).toEqual(['value', 'display', 'type', 'primary']);
    expect(sub(user, 'name')).toEqual(expect.arrayContaining(['formatted', 'givenName', 'familyName']));
    const group = schemas.body.Resources.find((schema: { id: string }) => schema.id === GROUP);
    expect(sub(group, 'members')).toEqual(['value', '$ref', 'display', 'type']);
    for (const type of ['User', 'Group']) {
      const one = await scim('GET', `/ResourceTypes/${type}`);
      expect(one.body).toMatchObject({ id: type, endpoint: `/${type}s` });
    }
    expectScimError(await scim('GET', '/Schemas/urn:example:nothing'), 404);
    expectScimError(await scim('GET', '/ResourceTypes/Printer'), 404);
  });

  it('an unknown path or method under /scim/v2 answers a SCIM error', async () => {
    expectScimError(await scim('GET', '/Printers'), 404);
    expectScimError(await scim('GET', '/Users/1/extra'), 404);
    expectScimError(await scim('PATCH', '/ServiceProviderConfig', patch({ op: 'add', value: {} })), 405);
  });
});
