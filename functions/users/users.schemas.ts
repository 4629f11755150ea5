/**
 * Request schemas the users routes validate and the users service takes as input types
 * (z.output), so the two cannot drift apart.
 */
import * as z from 'zod/mini';
import { orderQuery } from '../../shared/http/schemas.ts';
import { pagination, queryInt } from '../../shared/http/query.ts';
import {
  displayNameSchema,
  emailSchema,
  passwordSchema,
  uniqueUsernameSchema,
} from '../../shared/domain/user-rules.ts';

const roles = z.array(z.enum(['Admin', 'Author', 'User'])).check(z.minLength(1));
const text = (max: number) => z.string().check(z.maxLength(max));

export const userListQuery = z.object({ ...pagination, order: orderQuery, joinedSince: queryInt });

export const userPatchBody = z.object({
  username: z.optional(displayNameSchema),
  unique_username: z.optional(uniqueUsernameSchema),
  email: z.optional(emailSchema),
  password: z.optional(passwordSchema),
  current_password: z.optional(z.string()),
  location: z.optional(z.nullable(text(100))),
  summary: z.optional(z.nullable(text(500))),
  about_raw: z.optional(text(20000)),
  sso_userid: z.optional(z.nullable(text(200))),
  employee_id: z.optional(z.nullable(text(100))),
  privileges: z.optional(roles),
  flags: z.optional(z.array(text(100))),
});

export const createByEmailsBody = z.object({
  emails: z.array(z.string().check(z.maxLength(254))).check(z.minLength(1), z.maxLength(100)),
  privileges: z.optional(roles),
});

export type UserListQuery = z.output<typeof userListQuery>;
export type UserPatch = z.output<typeof userPatchBody>;
export type CreateByEmailsInput = z.output<typeof createByEmailsBody>;
