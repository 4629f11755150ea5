/**
 * Access grants on a guide: users and teams who may read it while it is private (and, for
 * Authors, edit it). The author and Admins grant and revoke; whoever may edit the guide sees the
 * lists. Grants are not content: they keep the guide's revisionid (no 409 for editors).
 */
import { config } from '../../shared/config.ts';
import { NotFoundError } from '../../shared/domain/errors.ts';
import { teamView } from '../../shared/views/team-views.ts';
import { userSummary } from '../../shared/views/user-views.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { getTeam, getTeams } from '../../shared/db/entities/team.ts';
import { getUser, getUsers } from '../../shared/db/entities/user.ts';
import type { GuideRecord } from '../../shared/db/entities/guide.ts';
import { assertCanEditGuide, assertCanManageGuideGrants } from '../../shared/content/guide-access.ts';
import { stillMayManageGrants } from './edit-permission.ts';
import { changeGuide } from '../../shared/content/guide-revisions.ts';
import { guideConflictView } from './guides.service.ts';
import type { Page } from '../../shared/db/paging.ts';

type GrantKind = 'grant_userids' | 'grant_teamids';

const ALL = { limit: 1000, offset: 0 };

function pageOf(ids: number[], page: Page): number[] {
  return [...ids].sort((a, b) => a - b).slice(page.offset, page.offset + page.limit);
}

async function usersView(guide: GuideRecord, page: Page) {
  const users = await getUsers(pageOf(guide.grant_userids, page));
  return users.map((user) => userSummary(user, config().STEPWISE_SITE_URL));
}

async function teamsView(guide: GuideRecord, page: Page) {
  const teams = await getTeams(pageOf(guide.grant_teamids, page));
  return teams.map(teamView);
}

/** Adds or removes one id in a grant list; no write when nothing changes. */
async function changeGrant(
  caller: Caller,
  guide: GuideRecord,
  kind: GrantKind,
  id: number,
  granted: boolean,
): Promise<GuideRecord> {
  if (guide[kind].includes(id) === granted) return guide;
  return changeGuide(
    guide.guideid,
    {
      reason: granted ? 'guide.grant' : 'guide.revoke',
      changedBy: caller.userid,
      newRevision: false,
      conflictView: guideConflictView(caller),
    },
    (current) => {
      stillMayManageGrants(caller, current);
      const ids = current[kind].filter((existing) => existing !== id);
      return { guide: { ...current, [kind]: granted ? [...ids, id].sort((a, b) => a - b) : ids } };
    },
  );
}

export async function listUsers(caller: Caller, guideid: number, page: Page) {
  return usersView(await assertCanEditGuide(caller, guideid), page);
}

export async function grantUser(caller: Caller, guideid: number, userid: number) {
  const guide = await assertCanManageGuideGrants(caller, guideid);
  if (!(await getUser(userid))) throw new NotFoundError(`No user with userid ${userid}`);
  return usersView(await changeGrant(caller, guide, 'grant_userids', userid, true), ALL);
}

export async function revokeUser(caller: Caller, guideid: number, userid: number): Promise<void> {
  const guide = await assertCanManageGuideGrants(caller, guideid);
  if (!guide.grant_userids.includes(userid)) throw new NotFoundError(`User ${userid} has no grant on guide ${guideid}`);
  await changeGrant(caller, guide, 'grant_userids', userid, false);
}

export async function listTeams(caller: Caller, guideid: number, page: Page) {
  return teamsView(await assertCanEditGuide(caller, guideid), page);
}

export async function grantTeam(caller: Caller, guideid: number, teamid: number) {
  const guide = await assertCanManageGuideGrants(caller, guideid);
  if (!(await getTeam(teamid))) throw new NotFoundError(`No team with teamid ${teamid}`);
  return teamsView(await changeGrant(caller, guide, 'grant_teamids', teamid, true), ALL);
}

export async function revokeTeam(caller: Caller, guideid: number, teamid: number): Promise<void> {
  const guide = await assertCanManageGuideGrants(caller, guideid);
  if (!guide.grant_teamids.includes(teamid)) throw new NotFoundError(`Team ${teamid} has no grant on guide ${guideid}`);
  await changeGrant(caller, guide, 'grant_teamids', teamid, false);
}
