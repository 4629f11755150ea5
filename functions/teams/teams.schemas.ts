/** Request schemas the teams routes validate and the teams service takes as input types (z.output). */
import * as z from 'zod/mini';
import { orderQuery } from '../../shared/http/schemas.ts';
import { pagination, queryInt } from '../../shared/http/query.ts';

/** Each change is 2 writes and a transaction holds 100: bounded so one request stays atomic. */
export const MAX_MEMBER_CHANGES = 45;

const userids = z.array(z.int().check(z.positive())).check(z.maxLength(MAX_MEMBER_CHANGES));

export const createTeamBody = z.object({
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
  description: z.optional(z.string().check(z.maxLength(2000))),
  owner: z.optional(z.int().check(z.positive())),
  privacy: z.optional(z.enum(['public', 'private'])),
  members: z.optional(userids),
  location: z.optional(z.nullable(z.string().check(z.maxLength(100)))),
});

export const teamListQuery = z.object({ ...pagination, order: orderQuery, newMemberSince: queryInt });

export const memberChangesBody = z.object({ add: z.optional(userids), remove: z.optional(userids) });

export type CreateTeamInput = z.output<typeof createTeamBody>;
export type TeamListQuery = z.output<typeof teamListQuery>;
export type MemberChanges = z.output<typeof memberChangesBody>;
