/**
 * SCIM Users (RFC 7643 §4.1) over the site's accounts (decision 284): userName is kept as the
 * identity provider sent it (unique, case aside; an account SCIM never named answers its email),
 * the account's email is the primary of `emails` (else the work one, else the first, else an
 * email-shaped userName), externalId its sso_userid, displayName its name, the enterprise
 * employeeNumber its employee_id; the other attributes of the declared schemas (name parts,
 * title, phone numbers, addresses, department ...) are kept beside the account as sent.
 * `active: false` and DELETE disable the account (docs/identity.md): it signs in no more and its
 * tokens (sessions) are deleted at once; its training records, signatures and audit trail stay.
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
  checkIfMatch,
  etagOf,
  isoDate,
  listPage,
  type ListQuery,
  patchOperations,
  SCHEMA,
  scimBase,
  ScimError,
} from './scim-protocol.ts';
import { applyPatch, isObject, normalizeDocument, resourceValues, type ScimDocument } from './scim-resource.ts';
import { USER_RESOURCE } from './scim-schema.ts';

const EMAIL_SHAPE = /^[^@\s]+@[^@\s]+$/;
/** The most a User's kept attributes (scim_profile) may weigh, as JSON. */
const MAX_PROFILE_BYTES = 16_384;

/** The attributes SCIM keeps beside the account, read back through their declared schemas. */
function storedProfile(user: UserRecord): ScimDocument {
  if (user.scim_profile === undefined) return {};
  try {
    return normalizeDocument(user.scim_profile, USER_RESOURCE);
  } catch {
    return {};
  }
}

function withoutUndefined(resource: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(resource).filter(([, value]) => value !== undefined));
}

/** The account's writable SCIM attributes: what PATCH starts from. */
function documentOf(user: UserRecord): ScimDocument {
  const profile = storedProfile(user);
  const named = user.scim_profile !== undefined;
  const {
    [SCHEMA.enterpriseUser]: enterpriseKept,
    emails,
    name,
    displayName: _displayName,
    ...rest
  } = profile as ScimDocument & { emails?: Array<{ value?: string }> };
  const sentEmails = emails?.some((email) => email.value?.toLowerCase() === user.email.toLowerCase());
  const enterprise = {
    ...(isObject(enterpriseKept) ? enterpriseKept : {}),
    ...(user.employee_id ? { employeeNumber: user.employee_id } : {}),
  };
  return withoutUndefined({
    userName: user.scim_username ?? user.email,
    externalId: user.sso_userid ?? undefined,
    name: named ? name : { formatted: user.username },
    // A displayName SCIM removed stays removed (the account keeps a name to show: decision 284).
    displayName: !named || 'displayName' in profile ? user.username : undefined,
    emails: sentEmails
      ? emails
      : named && emails === undefined
        ? undefined
        : [{ value: user.email, type: 'work', primary: true }],
    ...rest,
    active: !user.disabled,
    ...(Object.keys(enterprise).length ? { [SCHEMA.enterpriseUser]: enterprise } : {}),
  });
}

export function userResource(user: UserRecord, teamNames: Map<number, string>): Record<string, unknown> {
  const base = scimBase();
  const document = documentOf(user);
  return {
    schemas: [SCHEMA.user, ...(document[SCHEMA.enterpriseUser] ? [SCHEMA.enterpriseUser] : [])],
    id: String(user.userid),
    ...document,
    groups: user.teams.map((teamid) => ({
      value: String(teamid),
      $ref: `${base}/Groups/${teamid}`,
      display: teamNames.get(teamid) ?? '',
      type: 'direct',
    })),
    meta: { resourceType: 'User', created: isoDate(user.join_date), location: `${base}/Users/${user.userid}` },
  };
}

async function resourcesOf(users: UserRecord[]): Promise<Record<string, unknown>[]> {
  const teamids = [...new Set(users.flatMap((user) => user.teams))];
  const teams = teamids.length ? await getTeams(teamids) : [];
  const names = new Map(teams.map((team) => [team.teamid, team.name]));
  return users.map((user) => userResource(user, names));
}

/** What a write sets on the account, read from a User document. */
interface AccountFields {
  userName: string;
  email: string;
  displayName: string;
  externalId: string | null;
  employeeNumber: string | null;
  active: boolean;
  profile: ScimDocument;
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** The account fields of a User document (after PATCH, or as POST/PUT sent it); 400 for what cannot be kept. */
function accountFields(raw: ScimDocument): AccountFields {
  const doc = normalizeDocument(raw, USER_RESOURCE);
  const userName = doc.userName;
  if (typeof userName !== 'string' || userName.length > 256)
    throw new ScimError(400, 'userName is a string of 1 to 256 characters', 'invalidValue');
  const emails = (doc.emails ?? []) as Array<{ value?: string; type?: string; primary?: boolean }>;
  const chosen =
    emails.find((email) => email.primary === true && email.value) ??
    emails.find((email) => email.type?.toLowerCase() === 'work' && email.value) ??
    emails.find((email) => email.value);
  const email = chosen?.value?.trim() ?? (EMAIL_SHAPE.test(userName.trim()) ? userName.trim() : undefined);
  if (!email || !EMAIL_SHAPE.test(email) || email.length > 254)
    throw new ScimError(
      400,
      'A User needs an email address: a value in emails, or a userName that is one',
      'invalidValue',
    );
  const name = (doc.name ?? {}) as { formatted?: string; givenName?: string; familyName?: string };
  const joined = [name.givenName, name.familyName].filter(Boolean).join(' ');
  const displayName = (textOf(doc.displayName) ?? textOf(name.formatted) ?? (joined || userName)).trim().slice(0, 200);
  const { userName: _userName, externalId, active, [SCHEMA.enterpriseUser]: enterpriseDoc, ...profile } = doc;
  const { employeeNumber, ...enterpriseKept } = (enterpriseDoc ?? {}) as Record<string, unknown>;
  if (Object.keys(enterpriseKept).length) profile[SCHEMA.enterpriseUser] = enterpriseKept;
  if (Buffer.byteLength(JSON.stringify(profile)) > MAX_PROFILE_BYTES)
    throw new ScimError(400, `A User's attributes are at most ${MAX_PROFILE_BYTES} bytes`, 'invalidValue');
  return {
    userName,
    email,
    displayName,
    externalId: textOf(externalId) ?? null,
    employeeNumber: textOf(employeeNumber) ?? null,
    active: active === undefined ? true : (active as boolean),
    profile,
  };
}

/**
 * The account a userName names: the one SCIM named so, else the one whose email it is when SCIM
 * never named that account (its userName is its email).
 */
async function userNameHolder(userName: string): Promise<number | undefined> {
  const named = await findUserIdBy('SCIM_USERNAME', userName);
  if (named !== undefined) return named;
  const byEmail = await findUserIdBy('EMAIL', userName);
  if (byEmail === undefined) return undefined;
  const user = await getUser(byEmail);
  return user && user.scim_username === undefined ? user.userid : undefined;
}

async function requireFreeUserName(userName: string, userid?: number): Promise<void> {
  const holder = await userNameHolder(userName);
  if (holder !== undefined && holder !== userid)
    throw new ScimError(409, 'A User with this userName exists', 'uniqueness');
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
  const userName = filter && equalityOn(filter, 'userName');
  const email = filter && (equalityOn(filter, 'emails') ?? equalityOn(filter, 'emails.value'));
  const sso = filter && equalityOn(filter, 'externalId');
  if (userName !== undefined || email !== undefined || sso !== undefined) {
    const userid =
      userName !== undefined
        ? await userNameHolder(userName)
        : await findUserIdBy(email !== undefined ? 'EMAIL' : 'SSO', (email ?? sso)!);
    const user = userid === undefined ? undefined : await getUser(userid);
    return provisioned(user) ? [user] : [];
  }
  const users = (await queryAll(usersCollection)).map(recordsOf(userItemSchema)).map((record) => ({
    ...record,
    teams: [...(record.teams ?? [])].map(Number).sort((a, b) => a - b),
  }));
  return users.filter(
    (user) =>
      provisioned(user) && (!filter || matchesScimFilter(filter, resourceValues(userResource(user, new Map())))),
  );
}

/** GET /Users (and POST /Users/.search): a ListResponse of the matching accounts in the request's window. */
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

function conflictOf(error: unknown): ScimError | undefined {
  return uniquenessProblem(error)
    ? new ScimError(409, `A User with this userName, email, externalId or employeeNumber exists`, 'uniqueness')
    : undefined;
}

export async function createUser(caller: Caller, body: unknown): Promise<Record<string, unknown>> {
  const fields = accountFields(isObject(body) ? body : {});
  await requireFreeUserName(fields.userName);
  let user: UserRecord;
  try {
    user = await createUserAccount({
      email: fields.email,
      username: fields.displayName,
      sso_userid: fields.externalId,
      employee_id: fields.employeeNumber,
      created_by: null,
      scim_username: fields.userName,
      scim_profile: fields.profile,
    });
  } catch (error) {
    throw conflictOf(error) ?? error;
  }
  if (!fields.active)
    user = await changeUser(caller, String(user.userid), undefined, (doc) => ({ ...doc, active: false }));
  return (await resourcesOf([user]))[0];
}

/**
 * Reads the account, checks If-Match against its current version, applies `change` to its
 * document and writes the fields it yields with the version condition (a concurrent edit
 * retries the whole step). Disabling deletes every token of the account and is recorded in its
 * audit chain.
 */
async function changeUser(
  caller: Caller,
  id: string,
  ifMatch: string | undefined,
  change: (doc: ScimDocument) => ScimDocument,
  deleting = false,
): Promise<UserRecord> {
  const result = await retryOnLostRace(
    async () => {
      const before = await requireUser(id);
      checkIfMatch(ifMatch, etagOf((await resourcesOf([before]))[0]));
      const fields = accountFields(change(documentOf(before)));
      if (fields.userName.toLowerCase() !== (before.scim_username ?? before.email).toLowerCase())
        await requireFreeUserName(fields.userName, before.userid);
      const after: UserRecord = {
        ...before,
        email: fields.email,
        username: fields.displayName,
        sso_userid: fields.externalId,
        employee_id: fields.employeeNumber,
        disabled: !fields.active,
        scim_username: fields.userName,
        scim_profile: fields.profile,
        ...(deleting ? { scim_deleted_date: nowSeconds() } : {}),
      };
      after.search_tokens = searchTokens(after.username, after.unique_username);
      try {
        await replaceUser(before, after);
      } catch (error) {
        throw conflictOf(error) ?? error;
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

/** PUT: the resource as sent replaces the User's attributes (those it leaves out are cleared). */
export async function replaceUserResource(caller: Caller, id: string, body: unknown, ifMatch?: string) {
  await guardWrite(id);
  const user = await changeUser(caller, id, ifMatch, () => (isObject(body) ? body : {}));
  return (await resourcesOf([user]))[0];
}

/** PATCH: every operation applied in order (RFC 7644 §3.5.2), or none and a SCIM error. */
export async function patchUser(caller: Caller, id: string, body: unknown, ifMatch?: string) {
  await guardWrite(id);
  const operations = patchOperations(body);
  const user = await changeUser(caller, id, ifMatch, (current) => applyPatch(current, operations, USER_RESOURCE));
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
  await changeUser(caller, id, ifMatch, (doc) => ({ ...doc, active: false }), true);
}
