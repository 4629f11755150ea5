/**
 * Teams with their attributes and members: every team GET /teams lists, its full record from
 * GET /teams/{teamid}/attributes and its members from GET /teams/{teamid} (a private team's
 * members only as far as the token may see them). Items are built by shared/db/entities/team.ts;
 * the members' `teams` sets are on the user items the users crawler writes.
 */
import { addMemberWrites, teamCreateWrites, type TeamRecord } from '../../../../shared/db/entities/team.ts';
import { searchTokens } from '../../../../shared/domain/search-tokens.ts';
import type { TeamAttributesView } from '../../../../shared/views/team-views.ts';
import { itemsOfWrites, type CrawlContext, type ResourceCrawler } from '../crawl.ts';
import { forEachPageOrUnexposed, listOrUnexposed } from './content-source.ts';

/**
 * Team member attributes API 2.0 does not hand out (test/migrate/teams.test.ts compares the rest):
 * - joined: when each member joined; the crawler uses the team's new_member_since (when the last
 *   member joined), else its created_date.
 */
export const MEMBER_ATTRIBUTES_NOT_EXPOSED = ['joined'] as const;

export function teamRecordFromView(view: TeamAttributesView): TeamRecord {
  return {
    teamid: view.teamid,
    name: view.name,
    description: view.description,
    owner: view.owner,
    location: view.location,
    latitude: view.latitude,
    longitude: view.longitude,
    image: view.image,
    member_count: view.member_count,
    reputation: view.reputation,
    attributes: view.attributes,
    created_date: view.created_date,
    privacy: view.privacy,
    new_member_since: view.new_member_since,
  };
}

async function crawlTeam(context: CrawlContext, teamid: number): Promise<void> {
  const view = await context.api.find<TeamAttributesView>(`/teams/${teamid}/attributes`);
  if (!view) {
    context.report.skipped(`team ${teamid}`, 'listed, but GET /teams/{teamid}/attributes refused or lost it');
    return;
  }
  const team = teamRecordFromView(view);
  const members = await listOrUnexposed<{ userid: number }>(
    context,
    'members of private teams the migrating account does not manage',
    `/teams/${teamid}`,
  );
  if (members && members.length !== team.member_count)
    context.report.skipped(`members of team ${teamid}`, `listed ${members.length} of ${team.member_count}`);
  const joined = team.new_member_since ?? team.created_date;
  await context.sink.items(
    itemsOfWrites([
      ...teamCreateWrites(team, searchTokens(team.name)),
      ...(members ?? []).flatMap((member) => addMemberWrites(teamid, member.userid, joined)),
    ]),
  );
}

export const teamsCrawler: ResourceCrawler = {
  name: 'teams',
  after: ['users'],
  async crawl(context) {
    context.report.unexposed('when each member joined a team', 'a team shows only when its last member joined');
    await forEachPageOrUnexposed<{ teamid: number }>(
      context,
      'teams',
      '/teams',
      async (page) => {
        for (const { teamid } of page) {
          context.known.add('team', teamid);
          context.sink.idSeen('team', teamid);
          const unit = `team:${teamid}`;
          if (context.isDone(unit)) continue;
          await crawlTeam(context, teamid);
          await context.completed(unit);
        }
      },
      { order: 'ASC' },
    );
  },
};
