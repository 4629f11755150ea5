/** Request bodies of the API token routes; the service takes their z.output. */
import * as z from 'zod/mini';
import { API_SCOPES } from '../../shared/domain/caller.ts';

export const createApiTokenBody = z.object({
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
  scopes: z.array(z.enum(API_SCOPES)).check(
    z.minLength(1),
    z.refine((scopes) => new Set(scopes).size === scopes.length, 'Each scope may be named once'),
  ),
});

export const apiTokenParams = z.object({ tokenid: z.string().check(z.regex(/^[0-9a-f]{16}$/)) });

export type CreateApiTokenInput = z.output<typeof createApiTokenBody>;
