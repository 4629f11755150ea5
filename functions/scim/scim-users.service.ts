/**
 * SCIM Users (RFC 7643 §4.1) over the site's accounts: userName is the account's email (the
 * login), externalId its sso_userid, displayName its name, the enterprise employeeNumber its
 * employee_id. `active: false` and DELETE disable the account (docs/identity.md): it signs in
 * no more and its tokens (sessions) are deleted at once; its training records, signatures and
 * audit trail stay. Attributes the account does not keep (phone numbers, addresses, titles)
 * are accepted and not stored, as identity providers send them whatever the app maps.
 */
import { auditActor, type Caller } from '../../shared/domain/caller.ts';
import { appendAudit, auditSubject } from '../../shared/db/audit.ts';
import { findUserIdBy, getUser, replaceUser, type UserRecord } from '../../shared/db/entities/user.ts';
import { deleteAllTokensOf } from '../../shared/db/entities/token.ts';
import { getTeams } from '../../shared/db/entities/team.ts';
import { queryAll } from '../../shared/db/paging.ts';
import { usersCollection, userItemSchema } from '../../shared/db/entities/user.ts';
import { recordsOf } from '../../shared/db/stored-item.ts';
import { createUserAccount, uniquenessProblem } from '../../shared/accounts/accounts.ts';
import { requireScimMayWrite } from '../../shared/accounts/account-authority.ts';
import { searchTokens } from '../../shared/domain/search-tokens.ts';
import { retryOnLostRace, labelsIn } from '../../shared/db/retry.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { equalityOn, matchesScimFilter, type ScimFilter } from '../../shared/domain/scim-filter.ts';
import {
  booleanValue,
  checkIfMatch,
  etagOf,
  isoDate,
  listPage,
  type ListQuery,
  patchOperations,
  SCHEMA,
  scimBase,
  ScimError,
  stringValue,
} from './scim-protocol.ts';

/** The SCIM view of an account's editable attributes, which PATCH and PUT change. */
interface UserDraft {
  userName: string;
  externalId: string | null;
  displayName: string;
  email: string;
  employeeNumber: string | null;
  active: boolean;
}

function draftOf(user: UserRecord): UserDraft {
  return {
    userName: user.email,
    externalId: user.sso_userid,
    displayName: user.username,
    email: user.email,
    employeeNumber: user.employee_id,
    active: !user.disabled,
  };
}

export function userResource(user: UserRecord, teamNames: Map<number, string>): Record<string, unknown> {
  const base = scimBase();
  return {
    schemas: [SCHEMA.user, ...(user.employee_id ? [SCHEMA.enterpriseUser] : [])],
    id: String(user.userid),
    ...(user.sso_userid ? { externalId: user.sso_userid } : {}),
    userName: user.email,
    name: { formatted: user.username },
    displayName: user.username,
    emails: [{ value: user.email, type: 'work', primary: true }],
    active: !user.disabled,
    groups: user.teams.map((teamid) => ({
      value: String(teamid),
      $ref: `${base}/Groups/${teamid}`,
      display: teamNames.get(teamid) ?? '',
    })),
    ...(user.employee_id ? { [SCHEMA.enterpriseUser]: { employeeNumber: user.employee_id } } : {}),
    meta: { resourceType: 'User', created: isoDate(user.join_date), location: `${base}/Users/${user.userid}` },
  };
}

async function resourcesOf(users: UserRecord[]): Promise<Record<string, unknown>[]> {
  const teamids = [...new Set(users.flatMap((user) => user.teams))];
  const teams = teamids.length ? await getTeams(teamids) : [];
  const names = new Map(teams.map((team) => [team.teamid, team.name]));
  return users.map((user) => userResource(user, names));
}

function attributeValues(user: UserRecord) {
  const values: Record<string, Array<string | boolean>> = {
    id: [String(user.userid)],
    username: [user.email],
    externalid: user.sso_userid ? [user.sso_userid] : [],
    displayname: [user.username],
    'name.formatted': [user.username],
    emails: [user.email],
    'emails.value': [user.email],
    active: [!user.disabled],
    employeenumber: user.employee_id ? [user.employee_id] : [],
  };
  return (path: string) => values[path] ?? [];
}

/** A User SCIM deleted is gone for SCIM (decision 242): the account stays, disabled. */
function provisioned(user: UserRecord | undefined): user is UserRecord {
  return user !== undefined && user.scim_deleted_date === undefined;
}

/**
 * The accounts a filter matches, oldest first. `userName eq`, `emails eq` and `externalId eq`
 * (what provisioning sends before each create) are one uniqueness lookup; any other filter reads
 * the user list (a Query) and keeps the matches. Users SCIM deleted are left out.
 */
async function findUsers(filter: ScimFilter | undefined): Promise<UserRecord[]> {
  const email =
    filter && (equalityOn(filter, 'userName') ?? equalityOn(filter, 'emails') ?? equalityOn(filter, 'emails.value'));
  const sso = filter && equalityOn(filter, 'externalId');
  if (email !== undefined || sso !== undefined) {
    const userid = await findUserIdBy(email !== undefined ? 'EMAIL' : 'SSO', (email ?? sso)!);
    const user = userid === undefined ? undefined : await getUser(userid);
    return provisioned(user) ? [user] : [];
  }
  const users = (await queryAll(usersCollection)).map(recordsOf(userItemSchema)).map((record) => ({
    ...record,
    teams: [...(record.teams ?? [])].map(Number).sort((a, b) => a - b),
  }));
  return users.filter((user) => provisioned(user) && (!filter || matchesScimFilter(filter, attributeValues(user))));
}

/** GET /Users: a ListResponse of the matching accounts in the request's window. */
export async function listUsers(filter: ScimFilter | undefined, query: ListQuery) {
  return listPage(await findUsers(filter), query, resourcesOf);
}

async function requireUser(id: string): Promise<UserRecord> {
  const userid = /^\d{1,15}$/.test(id) ? Number(id) : undefined;
  const user = userid === undefined || userid === 0 ? undefined : await getUser(userid, { consistent: true });
  if (!provisioned(user)) throw new ScimError(404, `No User ${id}`);
  return user;
}

export async function getUserResource(id: string): Promise<Record<string, unknown>> {
  return (await resourcesOf([await requireUser(id)]))[0];
}

function primaryEmail(value: unknown): string | undefined {
  if (!Array.isArray(value)) return undefined;
  const emails = value as Array<{ value?: unknown; primary?: unknown }>;
  const chosen = emails.find((email) => email.primary === true) ?? emails[0];
  return typeof chosen?.value === 'string' ? chosen.value : undefined;
}

/** Applies one attribute (by path, lower-cased) to the draft; unknown attributes are not kept. */
function applyAttribute(draft: UserDraft, path: string, value: unknown, op: 'add' | 'replace' | 'remove'): void {
  const key = path.replace(/^urn:ietf:params:scim:schemas:core:2\.0:user:/i, '').toLowerCase();
  const removing = op === 'remove';
  if (key === 'username') draft.userName = stringValue(value, 'userName');
  else if (key === 'externalid')
    draft.externalId = removing || value === null ? null : stringValue(value, 'externalId');
  else if (key === 'displayname' || key === 'name.formatted') {
    if (!removing) draft.displayName = stringValue(value, 'displayName');
  } else if (key === 'active') draft.active = removing ? true : booleanValue(value, 'active');
  else if (key === 'name' && value && typeof value === 'object') {
    const name = value as { formatted?: unknown; givenName?: unknown; familyName?: unknown };
    const joined = [name.givenName, name.familyName].filter((part) => typeof part === 'string' && part).join(' ');
    if (typeof name.formatted === 'string' && name.formatted) draft.displayName = name.formatted.trim();
    else if (joined) draft.displayName = joined;
  } else if (key === 'emails' || /^emails\[.*\]\.value$/.test(key) || key === 'emails.value') {
    const email = key === 'emails' ? primaryEmail(value) : typeof value === 'string' ? value : undefined;
    // The login is the email: a new work email moves userName only where the IdP does not set it.
    if (email && !removing) draft.email = email;
  } else if (key === SCHEMA.enterpriseUser.toLowerCase() && value && typeof value === 'object') {
    const number = (value as { employeeNumber?: unknown }).employeeNumber;
    if (typeof number === 'string') draft.employeeNumber = number;
  } else if (key === `${SCHEMA.enterpriseUser.toLowerCase()}:employeenumber`) {
    draft.employeeNumber = removing || value === null ? null : stringValue(value, 'employeeNumber');
  }
}

function applyObject(draft: UserDraft, value: unknown, op: 'add' | 'replace'): void {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new ScimError(400, 'A PATCH without a path carries an object of attributes', 'invalidValue');
  for (const [path, attribute] of Object.entries(value)) applyAttribute(draft, path, attribute, op);
}

/** The draft from a full resource (POST, PUT). */
function draftFromResource(body: unknown, base?: UserDraft): UserDraft {
  const resource = (body ?? {}) as Record<string, unknown>;
  const userName = stringValue(resource.userName, 'userName');
  const email = userName.includes('@') ? userName : primaryEmail(resource.emails);
  if (!email) throw new ScimError(400, 'userName or a primary email is an email address', 'invalidValue');
  const draft: UserDraft = {
    userName,
    email,
    externalId: null,
    displayName: base?.displayName ?? userName,
    employeeNumber: null,
    active: true,
  };
  applyObject(draft, { ...resource, userName, emails: undefined }, 'replace');
  if (userName.includes('@')) draft.email = userName;
  return draft;
}

function emailOf(draft: UserDraft): string {
  const email = draft.userName.includes('@') ? draft.userName : draft.email;
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new ScimError(400, 'userName is an email address', 'invalidValue');
  return email;
}

export async function createUser(caller: Caller, body: unknown): Promise<Record<string, unknown>> {
  const draft = draftFromResource(body);
  let user: UserRecord;
  try {
    user = await createUserAccount({
      email: emailOf(draft),
      username: draft.displayName,
      sso_userid: draft.externalId,
      employee_id: draft.employeeNumber,
      created_by: null,
    });
  } catch (error) {
    if (uniquenessProblem(error) || (error as Error).name === 'ValidationError')
      throw new ScimError(
        409,
        `A User with this userName or externalId exists: ${(error as Error).message}`,
        'uniqueness',
      );
    throw error;
  }
  if (!draft.active) user = await changeUser(caller, String(user.userid), undefined, (d) => ({ ...d, active: false }));
  return (await resourcesOf([user]))[0];
}

/**
 * Reads the account, checks If-Match against its current version, applies `change` to its
 * draft and writes it with the version condition (a concurrent edit retries the whole step).
 * Disabling deletes every token of the account and is recorded in its audit chain.
 */
async function changeUser(
  caller: Caller,
  id: string,
  ifMatch: string | undefined,
  change: (draft: UserDraft) => UserDraft,
  deleting = false,
): Promise<UserRecord> {
  const result = await retryOnLostRace(
    async () => {
      const before = await requireUser(id);
      checkIfMatch(ifMatch, etagOf((await resourcesOf([before]))[0]));
      const draft = change(draftOf(before));
      const after: UserRecord = {
        ...before,
        email: emailOf(draft),
        username: draft.displayName,
        sso_userid: draft.externalId,
        employee_id: draft.employeeNumber,
        disabled: !draft.active,
        ...(deleting ? { scim_deleted_date: nowSeconds() } : {}),
      };
      after.search_tokens = searchTokens(after.username, after.unique_username);
      try {
        await replaceUser(before, after);
      } catch (error) {
        if (uniquenessProblem(error))
          throw new ScimError(409, 'Another User has this userName or externalId', 'uniqueness');
        throw error;
      }
      return { before, after };
    },
    { attempts: 5, raceLabels: labelsIn('user'), message: 'The User changed while it was being changed; try again' },
  );
  const { before, after } = result;
  const disabling = after.disabled && !before.disabled;
  if (disabling) await deleteAllTokensOf(after.userid);
  if (disabling || deleting || after.disabled !== Boolean(before.disabled)) {
    await appendAudit({
      action: deleting ? 'user.deprovisioned' : after.disabled ? 'user.disabled' : 'user.enabled',
      ...auditActor(caller),
      subjects: [auditSubject.user(after.userid)],
      details: { via: 'scim' },
    });
  }
  return after;
}

/** The account rule's guard on every SCIM write (decision 259): never an Admin account. */
async function guardWrite(id: string): Promise<void> {
  requireScimMayWrite(await requireUser(id));
}

export async function replaceUserResource(caller: Caller, id: string, body: unknown, ifMatch?: string) {
  await guardWrite(id);
  const user = await changeUser(caller, id, ifMatch, (current) => draftFromResource(body, current));
  return (await resourcesOf([user]))[0];
}

export async function patchUser(caller: Caller, id: string, body: unknown, ifMatch?: string) {
  await guardWrite(id);
  const operations = patchOperations(body);
  const user = await changeUser(caller, id, ifMatch, (current) => {
    const draft = { ...current };
    for (const operation of operations) {
      if (operation.path === undefined)
        applyObject(draft, operation.value, operation.op === 'remove' ? 'replace' : operation.op);
      else applyAttribute(draft, operation.path, operation.value, operation.op);
    }
    return draft;
  });
  return (await resourcesOf([user]))[0];
}

/**
 * DELETE: the person is gone from the identity provider. The account is disabled (its sessions
 * end) and marked SCIM-deleted: SCIM answers 404 for it from now on and lists it no more, while
 * the account, its training records, signatures and audit trail stay (decision 242). A User
 * disabled before (Entra's soft delete, then DELETE) is deleted the same way.
 */
export async function deleteUser(caller: Caller, id: string, ifMatch?: string): Promise<void> {
  await guardWrite(id);
  await changeUser(caller, id, ifMatch, (draft) => ({ ...draft, active: false }), true);
}
