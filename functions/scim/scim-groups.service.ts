/**
 * SCIM Groups (RFC 7643 §4.2): a Group is a team, its members the team's members. Membership
 * changes go through the same items as the teams routes (members, the team's count, the course
 * assignments that cover members) and are idempotent, as identity providers resend them: adding a
 * member already in, or removing one already out, changes nothing. A rename (PATCH replace
 * displayName, PUT) renames the team; DELETE removes it (shared/training/team-removal.ts): its
 * members leave it and keep their records (decision 242).
 */
import { nextId } from '../../shared/db/counters.ts';
import {
  addMemberWrites,
  applyMembershipChanges,
  getTeam,
  insertTeam,
  isMember,
  listMembers,
  listTeams,
  newTeamRecord,
  removeMemberWrites,
  renameTeam,
  setTeamExternalId,
  teamAggregateWrite,
  type TeamRecord,
} from '../../shared/db/entities/team.ts';
import { getUsers } from '../../shared/db/entities/user.ts';
import { teamMembershipChanged } from '../../shared/training/team-membership.ts';
import { removeTeam } from '../../shared/training/team-removal.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';
import { searchTokens } from '../../shared/domain/search-tokens.ts';
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
  stringValue,
} from './scim-protocol.ts';
import { applyPatch, isObject, normalizeDocument, resourceValues } from './scim-resource.ts';
import { GROUP_RESOURCE } from './scim-schema.ts';

const MAX_MEMBERS_SHOWN = 10_000;

/** A Group without its members: what filters compare. */
function groupHeader(team: TeamRecord): Record<string, unknown> {
  const base = scimBase();
  return {
    schemas: [SCHEMA.group],
    id: String(team.teamid),
    ...(team.scim_external_id === undefined ? {} : { externalId: team.scim_external_id }),
    displayName: team.name,
    meta: { resourceType: 'Group', created: isoDate(team.created_date), location: `${base}/Groups/${team.teamid}` },
  };
}

/**
 * The whole Group, members included, in every answer: its version (ETag) is the same in a list,
 * with members excluded or not, as read alone (RFC 7644 §3.14); the route projects it after.
 */
async function groupResource(team: TeamRecord): Promise<Record<string, unknown>> {
  const base = scimBase();
  const refs = await listMembers(team.teamid, { limit: MAX_MEMBERS_SHOWN, offset: 0 });
  const users = await getUsers(refs.map((ref) => ref.userid));
  const { meta, ...header } = groupHeader(team);
  return {
    ...header,
    members: users.map((user) => ({
      value: String(user.userid),
      $ref: `${base}/Users/${user.userid}`,
      display: user.username,
      type: 'User',
    })),
    meta,
  };
}

async function requireTeam(id: string): Promise<TeamRecord> {
  const team = /^\d{1,15}$/.test(id) ? await getTeam(Number(id)) : undefined;
  if (!team) throw new ScimError(404, `No Group ${id}`);
  return team;
}

export async function getGroupResource(id: string) {
  return groupResource(await requireTeam(id));
}

/** The teams a filter matches, oldest first (a displayName eq ignores case, as names are shown). */
async function findTeams(filter: ScimFilter | undefined): Promise<TeamRecord[]> {
  const teams = await listTeams({ limit: 100_000, offset: 0 });
  const name = filter && equalityOn(filter, 'displayName');
  return teams.filter((team) =>
    name !== undefined
      ? team.name.toLowerCase() === name.toLowerCase()
      : !filter || matchesScimFilter(filter, resourceValues(groupHeader(team))),
  );
}

/** GET /Groups (and POST /Groups/.search): a ListResponse of the matching teams in the request's window. */
export async function listGroups(filter: ScimFilter | undefined, query: ListQuery) {
  return listPage(await findTeams(filter), query, (page) => Promise.all(page.map((team) => groupResource(team))));
}

/** Group names are unique among teams (case aside): 409 uniqueness for a taken one. */
async function requireFreeName(name: string, teamid?: number): Promise<void> {
  const holders = await findTeams({ kind: 'compare', path: 'displayName', op: 'eq', value: name });
  if (holders.some((team) => team.teamid !== teamid))
    throw new ScimError(409, `A Group named ${name} exists`, 'uniqueness');
}

function memberIds(value: unknown): number[] {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.map((member) => {
    const id = (member as { value?: unknown })?.value;
    if (typeof id !== 'string' || !/^\d{1,15}$/.test(id))
      throw new ScimError(400, 'A member is {"value": "<User id>"}', 'invalidValue');
    return Number(id);
  });
}

/** Joins and leaves, skipping members already in (or out); unknown users are 400 invalidValue. */
async function changeMembers(team: TeamRecord, add: number[], remove: number[]): Promise<void> {
  const joining: number[] = [];
  for (const userid of new Set(add)) if (!(await isMember(team.teamid, userid))) joining.push(userid);
  const leaving: number[] = [];
  for (const userid of new Set(remove)) if (await isMember(team.teamid, userid)) leaving.push(userid);
  if (joining.length === 0 && leaving.length === 0) return;
  const users = new Map((await getUsers([...joining, ...leaving])).map((user) => [user.userid, user]));
  const unknown = joining.filter((userid) => !users.has(userid));
  if (unknown.length) throw new ScimError(400, `No User ${unknown.join(', ')}`, 'invalidValue');
  const now = nowSeconds();
  const reputation = (ids: number[]) => ids.reduce((sum, userid) => sum + (users.get(userid)?.reputation ?? 0), 0);
  await applyMembershipChanges([
    ...joining.flatMap((userid) => addMemberWrites(team.teamid, userid, now)),
    ...leaving.flatMap((userid) => removeMemberWrites(team.teamid, userid)),
    teamAggregateWrite(
      team.teamid,
      joining.length - leaving.length,
      reputation(joining) - reputation(leaving),
      joining.length ? now : null,
    ),
  ]);
  await teamMembershipChanged(team.teamid, joining, leaving, now);
}

/** What a Group document (a POST or PUT body, or a Group after PATCH) sets on the team. */
function groupFields(raw: unknown) {
  const doc = normalizeDocument(isObject(raw) ? raw : {}, GROUP_RESOURCE);
  const externalId = doc.externalId as string | undefined;
  if (externalId !== undefined && externalId.length > 256)
    throw new ScimError(400, 'externalId is at most 256 characters', 'invalidValue');
  return {
    name: stringValue(doc.displayName, 'displayName', 100),
    members: memberIds(doc.members),
    externalId: externalId ?? null,
  };
}

export async function createGroup(body: unknown) {
  const { name, members, externalId } = groupFields(body);
  await requireFreeName(name);
  // Provisioned by the site itself: no user owns it (null, never userid 0: decision 260); Admins manage it.
  const team = newTeamRecord({
    teamid: await nextId('team'),
    name,
    owner: null,
    privacy: 'private',
    created_date: nowSeconds(),
  });
  await insertTeam(externalId === null ? team : { ...team, scim_external_id: externalId }, searchTokens(team.name));
  await changeMembers(team, members, []);
  return groupResource((await getTeam(team.teamid))!);
}

/** Renames the team, sets its externalId and makes its members those listed (joins and leaves only). */
async function applyGroupFields(
  team: TeamRecord,
  current: Record<string, unknown>,
  fields: ReturnType<typeof groupFields>,
): Promise<void> {
  if (fields.name !== team.name) {
    await requireFreeName(fields.name, team.teamid);
    try {
      await renameTeam(team.teamid, fields.name, searchTokens(team.name), searchTokens(fields.name));
    } catch (error) {
      if (error instanceof TransactionConditionFailed) throw new ScimError(404, `No Group ${team.teamid}`);
      throw error;
    }
  }
  if (fields.externalId !== (team.scim_external_id ?? null)) await setTeamExternalId(team.teamid, fields.externalId);
  const members = new Set(fields.members);
  const present = memberIds(current.members);
  await changeMembers(
    team,
    [...members].filter((userid) => !present.includes(userid)),
    present.filter((userid) => !members.has(userid)),
  );
}

/** The Group's writable attributes, as PATCH starts from them. */
function groupDocument(resource: Record<string, unknown>): Record<string, unknown> {
  const { schemas: _schemas, id: _id, meta: _meta, members, ...rest } = resource;
  return { ...rest, members: memberIds(members).map((userid) => ({ value: String(userid) })) };
}

/**
 * PATCH: every operation Okta and Entra ID send (rename, externalId, add, remove and replace
 * members, `members[value eq "12"]`, members listed in a remove's value), applied to the Group
 * in order (RFC 7644 §3.5.2); a path the Group schema does not declare is 400 invalidPath.
 */
export async function patchGroup(id: string, body: unknown, ifMatch?: string) {
  const operations = patchOperations(body);
  const team = await requireTeam(id);
  const current = await groupResource(team);
  checkIfMatch(ifMatch, etagOf(current));
  const changed = applyPatch(groupDocument(current), operations, GROUP_RESOURCE);
  await applyGroupFields(team, current, groupFields(changed));
  return groupResource((await getTeam(team.teamid))!);
}

/** PUT: the Group as sent (an externalId it leaves out is cleared). */
export async function replaceGroup(id: string, body: unknown, ifMatch?: string) {
  const team = await requireTeam(id);
  const current = await groupResource(team);
  checkIfMatch(ifMatch, etagOf(current));
  await applyGroupFields(team, current, groupFields(body));
  return groupResource((await getTeam(team.teamid))!);
}

/** DELETE: the team is removed; its members leave it and keep their records. */
export async function deleteGroup(id: string, ifMatch?: string): Promise<void> {
  const team = await requireTeam(id);
  checkIfMatch(ifMatch, etagOf(await groupResource(team)));
  if (!(await removeTeam(team.teamid))) throw new ScimError(404, `No Group ${id}`);
}
