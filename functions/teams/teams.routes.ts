/** Teams: create, list with aggregated reputation, members, attributes, membership changes. */
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { idParams } from '../../shared/http/schemas.ts';
import { pagination, wholeListQuery } from '../../shared/http/query.ts';
import { userSummarySchema } from '../../shared/views/common-schemas.ts';
import { teamAssignmentSchema, teamAttributesSchema, teamSchema } from '../../shared/views/team-views.ts';
import { createTeamBody, memberChangesBody, teamListQuery } from './teams.schemas.ts';
import * as teams from './teams.service.ts';

const pageQuery = z.object(pagination);

export const teamsGroup = defineGroup({
  name: 'teams',
  access: { table: 'readwrite' },
  routes: [
    route({
      method: 'POST',
      path: '/teams',
      auth: 'admin',
      summary: 'Create a team; the owner (default: the caller) becomes a member',
      status: 201,
      body: createTeamBody,
      example: { name: 'Line 3 technicians', description: 'Night shift', privacy: 'private' },
      response: teamSchema,
      handler: ({ caller, body }) => teams.create(caller, body),
    }),
    route({
      method: 'GET',
      path: '/teams',
      auth: 'user',
      summary: "List teams with owner and the members' aggregated reputation",
      query: teamListQuery,
      response: z.array(teamSchema),
      handler: ({ query }) => teams.list(query),
    }),
    route({
      method: 'GET',
      path: '/teams/{teamid}/attributes',
      auth: 'user',
      summary: 'Attributes of a team',
      params: idParams('teamid'),
      response: teamAttributesSchema,
      handler: ({ params }) => teams.attributes(params.teamid),
    }),
    route({
      method: 'GET',
      path: '/teams/{teamid}',
      auth: 'user',
      summary: 'The members of a team (user summaries)',
      description: 'Of a private team, only members, the owner and Admins see the members (403 otherwise).',
      params: idParams('teamid'),
      query: wholeListQuery,
      response: z.array(userSummarySchema),
      handler: ({ caller, params, query }) => teams.members(caller, params.teamid, query),
    }),
    route({
      method: 'GET',
      path: '/teams/{teamid}/course_assignments',
      auth: 'user',
      summary: 'Course assignments of the team (members, the owner and Admins)',
      params: idParams('teamid'),
      query: pageQuery,
      response: z.array(teamAssignmentSchema),
      handler: ({ caller, params, query }) => teams.courseAssignments(caller, params.teamid, query),
    }),
    route({
      method: 'GET',
      path: '/teams/{teamid}/suggested_users',
      auth: 'user',
      summary: 'Users who are not members yet, newest first (the owner and Admins)',
      params: idParams('teamid'),
      query: pageQuery,
      response: z.array(userSummarySchema),
      handler: ({ caller, params, query }) => teams.suggestedUsers(caller, params.teamid, query),
    }),
    route({
      method: 'PUT',
      path: '/teams/{teamid}/users/{userid}',
      auth: 'user',
      summary: 'Add a user to a team; answers 200 with the member list',
      description: 'The owner and Admins add anyone; on a public team a user may add themself.',
      params: idParams('teamid', 'userid'),
      response: z.array(userSummarySchema),
      handler: ({ caller, params }) => teams.addMember(caller, params.teamid, params.userid),
    }),
    route({
      method: 'PATCH',
      path: '/teams/{teamid}/users',
      auth: 'user',
      summary: 'Add and/or remove several users at once (atomic); at least one of add, remove',
      params: idParams('teamid'),
      body: memberChangesBody,
      example: { add: [2, 3], remove: [4] },
      response: z.array(userSummarySchema),
      handler: ({ caller, params, body }) => teams.patchMembers(caller, params.teamid, body),
    }),
    route({
      method: 'DELETE',
      path: '/teams/{teamid}/users/{userid}',
      auth: 'user',
      summary: 'Remove a user from a team',
      status: 204,
      params: idParams('teamid', 'userid'),
      handler: async ({ caller, params }) => {
        await teams.removeMember(caller, params.teamid, params.userid);
      },
    }),
  ],
});
