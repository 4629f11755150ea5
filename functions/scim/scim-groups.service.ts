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

const MAX_MEMBERS_SHOWN = 10_000;

async function groupResource(team: TeamRecord, withMembers = true): Promise<Record<string, unknown>> {
  const base = scimBase();
  const refs = withMembers ? await listMembers(team.teamid, { limit: MAX_MEMBERS_SHOWN, offset: 0 }) : [];
  const users = await getUsers(refs.map((ref) => ref.userid));
  return {
    schemas: [SCHEMA.group],
    id: String(team.teamid),
    displayName: team.name,
    ...(withMembers
      ? {
          members: users.map((user) => ({
            value: String(user.userid),
            $ref: `${base}/Users/${user.userid}`,
            display: user.username,
          })),
        }
      : {}),
    meta: { resourceType: 'Group', created: isoDate(team.created_date), location: `${base}/Groups/${team.teamid}` },
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
      : !filter ||
        matchesScimFilter(filter, (path) =>
          path === 'displayname' ? [team.name] : path === 'id' ? [String(team.teamid)] : [],
        ),
  );
}

/** GET /Groups: a ListResponse of the matching teams in the request's window. */
export async function listGroups(filter: ScimFilter | undefined, query: ListQuery, excludeMembers: boolean) {
  return listPage(await findTeams(filter), query, (page) =>
    Promise.all(page.map((team) => groupResource(team, !excludeMembers))),
  );
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

export async function createGroup(body: unknown) {
  const resource = (body ?? {}) as { displayName?: unknown; members?: unknown };
  const name = stringValue(resource.displayName, 'displayName', 100);
  await requireFreeName(name);
  const members = memberIds(resource.members);
  // Provisioned by the site itself: no user owns it (null, never userid 0: decision 260); Admins manage it.
  const team = newTeamRecord({
    teamid: await nextId('team'),
    name,
    owner: null,
    privacy: 'private',
    created_date: nowSeconds(),
  });
  await insertTeam(team, searchTokens(team.name));
  await changeMembers(team, members, []);
  return groupResource((await getTeam(team.teamid))!);
}

/** `members[value eq "12"]` → 12 (Okta's remove). */
function memberInPath(path: string): number | undefined {
  const match = /^members\[\s*value\s+eq\s+"(\d{1,15})"\s*\]$/i.exec(path.trim());
  return match ? Number(match[1]) : undefined;
}

async function applyGroupChange(
  team: TeamRecord,
  displayName: unknown,
  add: number[],
  remove: number[],
  replaceWith?: number[],
) {
  if (displayName !== undefined) {
    const name = stringValue(displayName, 'displayName', 100);
    if (name !== team.name) {
      await requireFreeName(name, team.teamid);
      try {
        await renameTeam(team.teamid, name, searchTokens(team.name), searchTokens(name));
      } catch (error) {
        if (error instanceof TransactionConditionFailed) throw new ScimError(404, `No Group ${team.teamid}`);
        throw error;
      }
    }
  }
  if (replaceWith) {
    const current = (await listMembers(team.teamid, { limit: MAX_MEMBERS_SHOWN, offset: 0 })).map((ref) => ref.userid);
    add = replaceWith.filter((userid) => !current.includes(userid));
    remove = current.filter((userid) => !replaceWith.includes(userid));
  }
  await changeMembers(team, add, remove);
}

export async function patchGroup(id: string, body: unknown, ifMatch?: string) {
  const operations = patchOperations(body);
  const team = await requireTeam(id);
  checkIfMatch(ifMatch, etagOf(await groupResource(team)));
  const add: number[] = [];
  const remove: number[] = [];
  let replaceWith: number[] | undefined;
  let displayName: unknown;
  for (const { op, path, value } of operations) {
    const target = path?.trim().toLowerCase();
    if (target === undefined) {
      const fields = (value ?? {}) as { displayName?: unknown; members?: unknown };
      if (fields.displayName !== undefined) displayName = fields.displayName;
      if (fields.members !== undefined) {
        if (op === 'replace') replaceWith = memberIds(fields.members);
        else add.push(...memberIds(fields.members));
      }
    } else if (target === 'displayname') displayName = value;
    else if (target === 'members') {
      // Entra ID removes with path "members" and the members in value; Okta adds so.
      if (op === 'add') add.push(...memberIds(value));
      else if (op === 'remove') remove.push(...memberIds(value));
      else replaceWith = memberIds(value);
    } else if (memberInPath(path!) !== undefined && op === 'remove') remove.push(memberInPath(path!)!);
    else if (target !== 'externalid') throw new ScimError(400, `Cannot change ${path} of a Group`, 'invalidPath');
  }
  await applyGroupChange(team, displayName, add, remove, replaceWith);
  return groupResource((await getTeam(team.teamid))!);
}

export async function replaceGroup(id: string, body: unknown, ifMatch?: string) {
  const team = await requireTeam(id);
  checkIfMatch(ifMatch, etagOf(await groupResource(team)));
  const resource = (body ?? {}) as { displayName?: unknown; members?: unknown };
  await applyGroupChange(team, resource.displayName, [], [], memberIds(resource.members));
  return groupResource((await getTeam(team.teamid))!);
}

/** DELETE: the team is removed; its members leave it and keep their records. */
export async function deleteGroup(id: string, ifMatch?: string): Promise<void> {
  const team = await requireTeam(id);
  checkIfMatch(ifMatch, etagOf(await groupResource(team)));
  if (!(await removeTeam(team.teamid))) throw new ScimError(404, `No Group ${id}`);
}
