/** The wire shape of a team (reference/wire-format.md §2.3: the union of old and new list items). */
import type { TeamRecord } from '../db/entities/team.ts';

export function teamView(team: TeamRecord) {
  return {
    teamid: team.teamid,
    name: team.name,
    description: team.description,
    owner: team.owner,
    image: team.image,
    avatarUrl: (team.image as { thumbnail?: string } | null)?.thumbnail ?? null,
    location: team.location,
    latitude: team.latitude,
    longitude: team.longitude,
    reputation: team.reputation,
    member_count: team.member_count,
    new_member_since: team.new_member_since,
    privacy: team.privacy,
  };
}

export function teamAttributes(team: TeamRecord) {
  return { ...teamView(team), created_date: team.created_date, attributes: team.attributes };
}
