/**
 * Removing a team (SCIM DELETE of a Group, decision 242). Its members leave it the way a member
 * leaves through the teams routes (member item, the user's team set and the team's aggregates in
 * one transaction; the team's course assignments stop covering them), so each keeps their
 * completions, signatures and audit trail. Then the emptied team is marked removed, on the
 * condition that it still has no members: a member joining meanwhile starts the round again.
 */
import { nowSeconds } from '../clock.ts';
import { getUsers } from '../db/entities/user.ts';
import {
  applyMembershipChanges,
  getTeam,
  listMembers,
  markTeamRemoved,
  removeMemberWrites,
  teamAggregateWrite,
} from '../db/entities/team.ts';
import { labelsIn, retryOnLostRace } from '../db/retry.ts';
import { searchTokens } from '../domain/search-tokens.ts';
import { teamMembershipChanged } from './team-membership.ts';

/** Each leave is 2 writes, plus the team's aggregates: well under a transaction's 100. */
const LEAVES_PER_TRANSACTION = 45;

/** Empties the team, then marks it removed. False when there is no such team (or it is removed). */
export async function removeTeam(teamid: number): Promise<boolean> {
  return retryOnLostRace(
    async () => {
      const team = await getTeam(teamid);
      if (!team) return false;
      for (;;) {
        const refs = await listMembers(teamid, { limit: LEAVES_PER_TRANSACTION, offset: 0 });
        if (refs.length === 0) break;
        const leaving = await getUsers(refs.map((ref) => ref.userid));
        const reputation = leaving.reduce((sum, user) => sum + user.reputation, 0);
        await applyMembershipChanges([
          ...refs.flatMap((ref) => removeMemberWrites(teamid, ref.userid)),
          teamAggregateWrite(teamid, -refs.length, -reputation, null),
        ]);
        await teamMembershipChanged(
          teamid,
          [],
          refs.map((ref) => ref.userid),
          nowSeconds(),
        );
      }
      await markTeamRemoved(teamid, searchTokens(team.name), nowSeconds());
      return true;
    },
    { attempts: 5, raceLabels: labelsIn('team', 'member:'), message: 'The team kept changing; try again' },
  );
}
