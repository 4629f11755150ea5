/** Request schemas the auth routes validate and the auth service takes as input types (z.output). */
import * as z from 'zod/mini';
import {
  displayNameSchema,
  emailSchema,
  passwordSchema,
  uniqueUsernameSchema,
} from '../../shared/domain/user-rules.ts';

export const registerBody = z.object({
  email: emailSchema,
  username: displayNameSchema,
  password: passwordSchema,
  unique_username: z.optional(uniqueUsernameSchema),
});

export type Registration = z.output<typeof registerBody>;
