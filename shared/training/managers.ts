/**
 * Who manages whose training: Admins manage everyone; the owner of a team manages the team
 * and every member of it (assigns courses, completes or invalidates stages on their behalf,
 * reads their progress). Being a member or an Author grants nothing over others' training.
 */
import { isAdmin, type Caller } from '../domain/caller.ts';
import { getTeams, type TeamRecord } from '../db/entities/team.ts';
import { getUser } from '../db/entities/user.ts';

export function managesTeam(caller: Caller, team: Pick<TeamRecord, 'owner'>): boolean {
  return isAdmin(caller) || team.owner === caller.userid;
}

/** Admin, or owner of a team the trainee is in. */
export async function managesUser(caller: Caller, userid: number): Promise<boolean> {
  if (isAdmin(caller)) return true;
  if (caller.userid === userid) return false;
  const user = await getUser(userid);
  if (!user || user.teams.length === 0) return false;
  return (await getTeams(user.teams)).some((team) => team.owner === caller.userid);
}
