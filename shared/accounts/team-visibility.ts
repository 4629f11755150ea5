/**
 * Which team ids a viewer may see in user summaries (`teams`): the teams whose members GET
 * /teams/{teamid} would show them (decision 71): any public team; a private one only to its
 * members, its owner and Admins. Otherwise the summaries of a private team's members would list
 * what that endpoint refuses (decision 169).
 */
import { isAdmin, type Caller } from '../domain/caller.ts';
import { getTeams } from '../db/entities/team.ts';
import type { UserRecord } from '../db/entities/user.ts';

/** Whether the viewer may see a team id in a user summary. */
export type TeamFilter = (teamid: number) => boolean;

/** Every team: for the user themself (their own teams) and for Admins. */
export const allTeams: TeamFilter = () => true;

/**
 * The filter for summaries of these users: one BatchGet of the teams they are in that the
 * viewer is not (none for an Admin, or when the viewer shares every team listed).
 */
export async function teamFilterFor(
  viewer: Caller,
  users: ReadonlyArray<Pick<UserRecord, 'teams'>>,
): Promise<TeamFilter> {
  if (isAdmin(viewer)) return allTeams;
  const own = new Set(viewer.teams);
  const unknown = [...new Set(users.flatMap((user) => user.teams))].filter((teamid) => !own.has(teamid));
  const teams = unknown.length === 0 ? [] : await getTeams(unknown);
  const visible = new Set(
    teams.filter((team) => team.privacy !== 'private' || team.owner === viewer.userid).map((team) => team.teamid),
  );
  return (teamid) => own.has(teamid) || visible.has(teamid);
}
