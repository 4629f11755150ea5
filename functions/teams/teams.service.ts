/**
 * Team use cases. The owner (a relation, not a role) and Admins manage a team; on a public
 * team a user may add or remove themself. Membership changes move the member item, the user's
 * team set and the team's aggregates in one transaction.
 */
import { siteUrl } from '../../shared/config.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { searchTokens } from '../../shared/domain/search-tokens.ts';
import {
  teamAssignmentView,
  teamAttributes,
  teamView,
  type TeamAssignmentView,
  type TeamAttributesView,
  type TeamView,
} from '../../shared/views/team-views.ts';
import type { UserSummaryView } from '../../shared/views/common-schemas.ts';
import { userSummary } from '../../shared/views/user-views.ts';
import { BADGES } from '../../shared/domain/badges.ts';
import { actorFields, isAdmin, type Caller } from '../../shared/domain/caller.ts';
import { nextId } from '../../shared/db/counters.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { awardBadge } from '../../shared/db/entities/badge.ts';
import { getUsers, listUsersOutsideTeam, type UserRecord } from '../../shared/db/entities/user.ts';
import {
  addMemberWrites,
  applyMembershipChanges,
  getTeam,
  insertTeam,
  listMembers,
  listTeams,
  newTeamRecord,
  removeMemberWrites,
  teamAggregateWrite,
  type TeamRecord,
} from '../../shared/db/entities/team.ts';
import { listTeamAssignmentRefs } from '../../shared/db/entities/course-assignment-index.ts';
import { teamMembershipChanged } from '../../shared/training/team-membership.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';
import type { Page } from '../../shared/db/paging.ts';
import { teamFilterFor } from '../../shared/accounts/team-visibility.ts';
import { MAX_MEMBER_CHANGES, type CreateTeamInput, type MemberChanges, type TeamListQuery } from './teams.schemas.ts';

async function requireTeam(teamid: number): Promise<TeamRecord> {
  const team = await getTeam(teamid);
  if (!team) throw new NotFoundError(`No team with teamid ${teamid}`);
  return team;
}

function canManage(caller: Caller, team: TeamRecord): boolean {
  return isAdmin(caller) || team.owner === caller.userid;
}

async function requireUsers(userids: number[]): Promise<Map<number, UserRecord>> {
  const found = new Map((await getUsers(userids)).map((user) => [user.userid, user]));
  const missing = userids.filter((userid) => !found.has(userid));
  if (missing.length > 0) {
    throw new ValidationError(
      `Unknown userid ${missing.join(', ')}`,
      missing.map((userid) => ({ field: 'userid', code: 'not_found', message: `No user with userid ${userid}` })),
    );
  }
  return found;
}

/** Applies joins and leaves atomically; a user already in (or out) is reported as 422. */
async function changeMembers(team: TeamRecord, add: number[], remove: number[]): Promise<void> {
  const addSet = [...new Set(add)];
  const removeSet = [...new Set(remove)];
  if (addSet.length + removeSet.length > MAX_MEMBER_CHANGES) {
    throw ValidationError.field('add', 'too_many', `At most ${MAX_MEMBER_CHANGES} member changes per request`);
  }
  const both = addSet.filter((userid) => removeSet.includes(userid));
  if (both.length > 0)
    throw ValidationError.field('remove', 'conflict', `userid ${both.join(', ')} both added and removed`);
  const users = await requireUsers([...addSet, ...removeSet]);
  const now = nowSeconds();
  const reputationDelta =
    addSet.reduce((sum, userid) => sum + users.get(userid)!.reputation, 0) -
    removeSet.reduce((sum, userid) => sum + users.get(userid)!.reputation, 0);
  try {
    await applyMembershipChanges([
      ...addSet.flatMap((userid) => addMemberWrites(team.teamid, userid, now)),
      ...removeSet.flatMap((userid) => removeMemberWrites(team.teamid, userid)),
      teamAggregateWrite(
        team.teamid,
        addSet.length - removeSet.length,
        reputationDelta,
        addSet.length > 0 ? now : null,
      ),
    ]);
  } catch (error) {
    if (error instanceof TransactionConditionFailed) {
      const members = error.failedLabels
        .filter((label) => label.startsWith('member:'))
        .map((label) => Number(label.slice(7)));
      const already = members.filter((userid) => addSet.includes(userid));
      const notIn = members.filter((userid) => removeSet.includes(userid));
      const problems = [
        ...already.map((userid) => ({
          field: 'add',
          code: 'already_member',
          message: `userid ${userid} is already a member`,
        })),
        ...notIn.map((userid) => ({
          field: 'remove',
          code: 'not_member',
          message: `userid ${userid} is not a member`,
        })),
      ];
      if (problems.length > 0)
        throw new ValidationError(problems.map((problem) => problem.message).join('; '), problems);
      if (error.failedLabels.includes('team')) throw new NotFoundError(`No team with teamid ${team.teamid}`);
    }
    throw error;
  }
  // Course assignments of the team cover new members and let go of leaving ones (docs/courses.md).
  await teamMembershipChanged(team.teamid, addSet, removeSet, now);
  await Promise.all(addSet.map((userid) => awardBadge({ ...BADGES.teamPlayer, userid, date: now })));
}

export async function create(caller: Caller, input: CreateTeamInput): Promise<TeamView> {
  // A site API token owns nothing: its team has the owner it names, or none (decision 260).
  const { owner, owner_token } = input.owner !== undefined ? { owner: input.owner } : actorFields('owner', caller);
  if (owner !== null) await requireUsers([owner]);
  const team = newTeamRecord({
    teamid: await nextId('team'),
    name: input.name,
    description: input.description,
    owner,
    owner_token,
    location: input.location,
    privacy: input.privacy ?? 'public',
    created_date: nowSeconds(),
  });
  const members = [...new Set([...(owner !== null ? [owner] : []), ...(input.members ?? [])])];
  if (members.length > MAX_MEMBER_CHANGES)
    throw ValidationError.field('members', 'too_many', `At most ${MAX_MEMBER_CHANGES} initial members`);
  await requireUsers(members);
  await insertTeam(team, searchTokens(team.name));
  await changeMembers(team, members, []);
  return teamView(await requireTeam(team.teamid));
}

export async function list(query: TeamListQuery): Promise<TeamView[]> {
  const teams = await listTeams(query, query.order === 'DESC');
  return teams
    .filter((team) => query.newMemberSince === undefined || (team.new_member_since ?? 0) >= query.newMemberSince)
    .map(teamView);
}

/** Who may see a team's members: anyone on a public team; members, the owner and Admins on a private one. */
function canSeeMembers(caller: Caller, team: TeamRecord): boolean {
  return team.privacy !== 'private' || canManage(caller, team) || caller.teams.includes(team.teamid);
}

/** GET /teams/{teamid}: the members as user summaries (the real service's shape). */
export async function members(caller: Caller, teamid: number, page: Page) {
  const team = await requireTeam(teamid);
  if (!canSeeMembers(caller, team))
    throw new ForbiddenError('Only members, the owner and Admins see the members of a private team');
  return memberSummaries(caller, teamid, page);
}

/** The members as the viewer may see them: each one's `teams` filtered per viewer (decision 169). */
async function memberSummaries(viewer: Caller, teamid: number, page: Page) {
  const refs = await listMembers(teamid, page);
  const users = await getUsers(refs.map((ref) => ref.userid));
  const shownTeams = await teamFilterFor(viewer, users);
  return users.map((user) => userSummary(user, siteUrl(), shownTeams));
}

export async function attributes(teamid: number): Promise<TeamAttributesView> {
  return teamAttributes(await requireTeam(teamid));
}

export async function courseAssignments(caller: Caller, teamid: number, page: Page): Promise<TeamAssignmentView[]> {
  const team = await requireTeam(teamid);
  if (!canManage(caller, team) && !caller.teams.includes(teamid))
    throw new ForbiddenError("Only members, the owner and Admins see the team's assignments");
  return (await listTeamAssignmentRefs(teamid, page)).map(teamAssignmentView);
}

/** Users not yet in the team, newest accounts first. */
export async function suggestedUsers(caller: Caller, teamid: number, page: Page) {
  const team = await requireTeam(teamid);
  if (!canManage(caller, team)) throw new ForbiddenError('Only the team owner and Admins see suggestions');
  const users = await listUsersOutsideTeam(teamid, page);
  const shownTeams = await teamFilterFor(caller, users);
  return users.map((user) => userSummary(user, siteUrl(), shownTeams));
}

function authorizeMemberChange(caller: Caller, team: TeamRecord, userids: number[]): void {
  if (canManage(caller, team)) return;
  const selfOnly = userids.every((userid) => userid === caller.userid);
  if (selfOnly && team.privacy === 'public') return;
  throw new ForbiddenError('Only the team owner and Admins change members of this team');
}

export async function addMember(caller: Caller, teamid: number, userid: number) {
  const team = await requireTeam(teamid);
  authorizeMemberChange(caller, team, [userid]);
  await changeMembers(team, [userid], []);
  return memberSummaries(caller, teamid, { limit: 1000, offset: 0 });
}

export async function removeMember(caller: Caller, teamid: number, userid: number): Promise<void> {
  const team = await requireTeam(teamid);
  authorizeMemberChange(caller, team, [userid]);
  if (userid === team.owner) throw ValidationError.field('userid', 'owner', 'The team owner cannot leave the team');
  await changeMembers(team, [], [userid]);
}

export async function patchMembers(caller: Caller, teamid: number, input: MemberChanges): Promise<UserSummaryView[]> {
  const add = input.add ?? [];
  const remove = input.remove ?? [];
  if (add.length === 0 && remove.length === 0) {
    throw new ValidationError('Give add, remove, or both', [
      { field: 'add', code: 'missing_field', message: 'add or remove is required' },
      { field: 'remove', code: 'missing_field', message: 'add or remove is required' },
    ]);
  }
  const team = await requireTeam(teamid);
  authorizeMemberChange(caller, team, [...add, ...remove]);
  if (team.owner !== null && remove.includes(team.owner))
    throw ValidationError.field('remove', 'owner', 'The team owner cannot leave the team');
  await changeMembers(team, add, remove);
  return memberSummaries(caller, teamid, { limit: 1000, offset: 0 });
}
