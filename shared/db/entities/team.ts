/**
 * Team: pk TEAM#<teamid> / sk TEAM, listed through gsi1 (TEAMS, padded id). Members:
 * pk TEAM#<teamid> / sk MEMBER#<padded userid>. A member's team ids are also a number set on
 * the user item, and the team keeps member_count and the members' summed reputation; all of
 * them change in one transaction, so they never disagree.
 */
import { tableName } from '../client.ts';
import { getItem, itemExists } from '../items.ts';
import { padId } from '../keys.ts';
import { INDEXES } from '../table.ts';
import { queryPage, type PageQuery } from '../paging.ts';
import { transactWrite, type LabelledWrite } from '../transactions.ts';
import { userKey } from './user.ts';
import { searchTokenWrites } from '../search-index.ts';
import { batchGetInOrder } from '../batch.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import * as z from 'zod/mini';
import type { ServiceAuthor } from '../../domain/caller.ts';
import { serviceAuthorSchema } from './api-token.ts';

/** What a new team is made of; everything else starts empty (no members, no image, no place). */
export interface NewTeam {
  teamid: number;
  name: string;
  owner: number | null;
  owner_token?: ServiceAuthor;
  privacy: 'public' | 'private';
  created_date: number;
  description?: string;
  location?: string | null;
}

/** The record of a team before its first member joins: the one place its defaults are decided. */
export function newTeamRecord(team: NewTeam): TeamRecord {
  return {
    teamid: team.teamid,
    name: team.name,
    description: team.description ?? '',
    owner: team.owner,
    ...(team.owner_token ? { owner_token: team.owner_token } : {}),
    location: team.location ?? null,
    latitude: null,
    longitude: null,
    image: null,
    member_count: 0,
    reputation: 0,
    attributes: {},
    created_date: team.created_date,
    new_member_since: null,
    privacy: team.privacy,
  };
}

/** A Team item as teamCreateWrites puts it and the member changes ADD / SET to it (plain). */
export const teamItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('TEAM'),
  entity: z.literal('Team'),
  // A removed team leaves the TEAMS list: its item has no gsi1 keys.
  gsi1pk: z.optional(z.literal('TEAMS')),
  gsi1sk: z.optional(z.string()),
  teamid: z.int().check(z.positive()),
  name: z.string(),
  description: z.string(),
  /**
   * The owning user; null when no person owns it: a SCIM Group's team, or a team a site API token
   * made without naming an owner (owner_token names the token; decision 260). 0: the same, before it.
   */
  owner: z.nullable(z.int()),
  owner_token: z.optional(serviceAuthorSchema),
  location: z.nullable(z.string()),
  latitude: z.nullable(z.number()),
  longitude: z.nullable(z.number()),
  image: z.nullable(z.record(z.string(), z.unknown())),
  member_count: z.int(),
  reputation: z.number(),
  attributes: z.record(z.string(), z.string()),
  created_date: z.number(),
  /** public: any signed-in user may join; private: the owner or an Admin adds members. */
  privacy: z.enum(['public', 'private']),
  /** When the last member joined (the real service's new_member_since). */
  new_member_since: z.nullable(z.number()),
  /**
   * When the team was removed (SCIM DELETE of its Group, decision 242): it has no members, is
   * listed and found no more (getTeam answers undefined), and its item stays so that what names
   * it (assignments, grants, approval stages, history) still reads its name.
   */
  removed_date: z.optional(z.number()),
  /** The SCIM Group's externalId, the identity provider's own id for it (decision 284). */
  scim_external_id: z.optional(z.string()),
});

export type TeamRecord = StoredRecord<typeof teamItemSchema>;

export const teamMemberItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('TeamMember'),
  teamid: z.int().check(z.positive()),
  userid: z.int().check(z.positive()),
  joined: z.number(),
});

export type MemberRecord = StoredRecord<typeof teamMemberItemSchema>;

export function teamKey(teamid: number) {
  return { pk: `TEAM#${teamid}`, sk: 'TEAM' };
}

export function memberKey(teamid: number, userid: number) {
  return { pk: `TEAM#${teamid}`, sk: `MEMBER#${padId(userid)}` };
}

export const teamsCollection: PageQuery = { index: INDEXES.gsi1, partition: 'TEAMS' };

/** A new team (only if its id is free) and its name's search words (pure: a migration passes the source's id). */
export function teamCreateWrites(team: TeamRecord, nameTokens: string[]): LabelledWrite[] {
  return [
    {
      label: 'team',
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...teamKey(team.teamid),
            entity: 'Team',
            [INDEXES.gsi1.pk]: 'TEAMS',
            [INDEXES.gsi1.sk]: padId(team.teamid),
            ...team,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
    ...searchTokenWrites('TEAM', team.teamid, [], nameTokens),
  ];
}

export async function insertTeam(team: TeamRecord, nameTokens: string[]): Promise<void> {
  await transactWrite(teamCreateWrites(team, nameTokens));
}

/** A team that exists and was not removed. */
export async function getTeam(teamid: number): Promise<TeamRecord | undefined> {
  const item = await getItem(teamKey(teamid));
  const team = item ? recordFrom(teamItemSchema, item) : undefined;
  return team?.removed_date === undefined ? team : undefined;
}

/**
 * Teams in the order of the ids asked for; unknown ids are left out. Removed teams are kept:
 * this is how what names a team (an assignment, a grant, a stage) reads its name.
 */
export async function getTeams(teamids: number[]): Promise<TeamRecord[]> {
  const items = await batchGetInOrder(teamids.map(teamKey));
  return items.map(recordsOf(teamItemSchema));
}

export async function listTeams(page: { limit: number; offset: number }, descending = false): Promise<TeamRecord[]> {
  const items = await queryPage({ ...teamsCollection, descending }, page);
  return items.map(recordsOf(teamItemSchema));
}

export async function listMembers(teamid: number, page: { limit: number; offset: number }): Promise<MemberRecord[]> {
  const items = await queryPage({ partition: `TEAM#${teamid}`, sortPrefix: 'MEMBER#' }, page);
  return items.map(recordsOf(teamMemberItemSchema));
}

export async function isMember(teamid: number, userid: number): Promise<boolean> {
  return itemExists(memberKey(teamid, userid));
}

/** A user joining: member item, user's team set, team aggregates — all or nothing. */
export function addMemberWrites(teamid: number, userid: number, now: number): LabelledWrite[] {
  return [
    {
      label: `member:${userid}`,
      item: {
        Put: {
          TableName: tableName(),
          Item: { ...memberKey(teamid, userid), entity: 'TeamMember', teamid, userid, joined: now },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
    {
      label: `user:${userid}`,
      item: {
        Update: {
          TableName: tableName(),
          Key: userKey(userid),
          UpdateExpression: 'ADD teams :team',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':team': new Set([teamid]) },
        },
      },
    },
  ];
}

/** A user leaving: the inverse of addMemberWrites. */
export function removeMemberWrites(teamid: number, userid: number): LabelledWrite[] {
  return [
    {
      label: `member:${userid}`,
      item: {
        Delete: { TableName: tableName(), Key: memberKey(teamid, userid), ConditionExpression: 'attribute_exists(pk)' },
      },
    },
    {
      label: `user:${userid}`,
      item: {
        Update: {
          TableName: tableName(),
          Key: userKey(userid),
          UpdateExpression: 'DELETE teams :team',
          ExpressionAttributeValues: { ':team': new Set([teamid]) },
        },
      },
    },
  ];
}

/** The team's aggregates after members joined (+) or left (-). */
export function teamAggregateWrite(
  teamid: number,
  memberDelta: number,
  reputationDelta: number,
  now: number | null,
): LabelledWrite {
  return {
    label: 'team',
    item: {
      Update: {
        TableName: tableName(),
        Key: teamKey(teamid),
        UpdateExpression:
          now !== null
            ? 'ADD member_count :members, reputation :rep SET new_member_since = :now'
            : 'ADD member_count :members, reputation :rep',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: {
          ':members': memberDelta,
          ':rep': reputationDelta,
          ...(now !== null ? { ':now': now } : {}),
        },
      },
    },
  };
}

export async function applyMembershipChanges(writes: LabelledWrite[]): Promise<void> {
  await transactWrite(writes);
}

/** A new name, and its search words with it; a team removed meanwhile is not renamed. */
export async function renameTeam(teamid: number, name: string, oldTokens: string[], newTokens: string[]) {
  await transactWrite([
    {
      label: 'team',
      item: {
        Update: {
          TableName: tableName(),
          Key: teamKey(teamid),
          UpdateExpression: 'SET #name = :name',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(removed_date)',
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: { ':name': name },
        },
      },
    },
    ...searchTokenWrites('TEAM', teamid, oldTokens, newTokens),
  ]);
}

/** Sets (or with null removes) the SCIM externalId of a team that is not removed. */
export async function setTeamExternalId(teamid: number, externalId: string | null): Promise<void> {
  await transactWrite([
    {
      label: 'team',
      item: {
        Update: {
          TableName: tableName(),
          Key: teamKey(teamid),
          UpdateExpression: externalId === null ? 'REMOVE #external' : 'SET #external = :external',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(removed_date)',
          ExpressionAttributeNames: { '#external': 'scim_external_id' },
          ...(externalId === null ? {} : { ExpressionAttributeValues: { ':external': externalId } }),
        },
      },
    },
  ]);
}

/**
 * Marks an emptied team removed (see removed_date): out of the TEAMS list and the name search,
 * only while it has no members, so a member joining meanwhile fails it (label `team`).
 */
export async function markTeamRemoved(teamid: number, nameTokens: string[], now: number): Promise<void> {
  await transactWrite([
    {
      label: 'team',
      item: {
        Update: {
          TableName: tableName(),
          Key: teamKey(teamid),
          UpdateExpression: `SET removed_date = :now REMOVE ${INDEXES.gsi1.pk}, ${INDEXES.gsi1.sk}`,
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(removed_date) AND member_count = :zero',
          ExpressionAttributeValues: { ':now': now, ':zero': 0 },
        },
      },
    },
    ...searchTokenWrites('TEAM', teamid, nameTokens, []),
  ]);
}
