/**
 * The wire shapes of a team (docs/wire-fidelity.md §2.3: the union of old and new list items),
 * of its attributes, and of a team's course assignments; schemas first, builders return their
 * output types. GET /teams/{teamid} answers member user summaries (common-schemas.ts), not these.
 */
import * as z from 'zod/mini';
import type { TeamRecord } from '../db/entities/team.ts';
import type { TeamAssignmentRef } from '../db/entities/course-assignment-index.ts';
import { actingTokenSchema, actingTokenView, imageSchema, type ImageView } from './common-schemas.ts';
import { actorUserid } from '../domain/caller.ts';

export const teamSchema = z.object({
  teamid: z.int(),
  name: z.string(),
  description: z.string(),
  /**
   * The owner's userid; null when no person owns the team (a SCIM Group's, or made by a site API
   * token without an owner: `owner_token` names the token; decision 260).
   */
  owner: z.nullable(z.int()),
  owner_token: z.optional(actingTokenSchema),
  image: z.nullable(imageSchema),
  /** Newer sites' field: the image's thumbnail URL. */
  avatarUrl: z.nullable(z.string()),
  location: z.nullable(z.string()),
  latitude: z.nullable(z.number()),
  longitude: z.nullable(z.number()),
  /** The sum of the members' reputation. */
  reputation: z.number(),
  member_count: z.int(),
  new_member_since: z.nullable(z.int()),
  privacy: z.enum(['public', 'private']),
});

export const teamAttributesSchema = z.object({
  ...teamSchema.shape,
  created_date: z.int(),
  attributes: z.record(z.string(), z.string()),
});

/** GET /teams/{teamid}/course_assignments: one entry per course assigned to the team. */
export const teamAssignmentSchema = z.object({
  course_assignmentid: z.int(),
  teamid: z.int(),
  /** The course's wikiid. */
  wikiid: z.int(),
  due_within: z.nullable(z.int()),
  created_date: z.int(),
  cancelled: z.union([z.literal(0), z.literal(1)]),
});

export type TeamView = z.output<typeof teamSchema>;
export type TeamAttributesView = z.output<typeof teamAttributesSchema>;
export type TeamAssignmentView = z.output<typeof teamAssignmentSchema>;

export function teamView(team: TeamRecord): TeamView {
  const image = team.image as ImageView | null;
  const thumbnail = image?.thumbnail;
  return {
    teamid: team.teamid,
    name: team.name,
    description: team.description,
    owner: actorUserid(team.owner),
    ...actingTokenView('owner', team.owner_token),
    image,
    avatarUrl: typeof thumbnail === 'string' ? thumbnail : null,
    location: team.location,
    latitude: team.latitude,
    longitude: team.longitude,
    reputation: team.reputation,
    member_count: team.member_count,
    new_member_since: team.new_member_since,
    privacy: team.privacy,
  };
}

export function teamAttributes(team: TeamRecord): TeamAttributesView {
  return { ...teamView(team), created_date: team.created_date, attributes: team.attributes };
}

export function teamAssignmentView(ref: TeamAssignmentRef): TeamAssignmentView {
  return {
    course_assignmentid: ref.course_assignmentid,
    teamid: ref.teamid,
    wikiid: ref.wikiid,
    due_within: ref.due_within,
    created_date: ref.created_date,
    cancelled: ref.cancelled,
  };
}
