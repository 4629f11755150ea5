/** Request bodies of the LRS admin routes; the service takes their z.output. */
import * as z from 'zod/mini';
import { LRS_SCOPES } from '../../shared/domain/xapi/scopes.ts';

export const createLrsCredentialBody = z.object({
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
  scopes: z.array(z.enum(LRS_SCOPES)).check(
    z.minLength(1),
    z.refine((scopes) => new Set(scopes).size === scopes.length, 'Each scope may be named once'),
  ),
});

export const lrsCredentialParams = z.object({ key: z.string().check(z.regex(/^[0-9a-f]{20}$/)) });

export type CreateLrsCredentialInput = z.output<typeof createLrsCredentialBody>;
