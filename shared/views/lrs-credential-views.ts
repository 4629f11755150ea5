/** LRS credentials on the wire (Admins only; docs/lrs.md): never the secret after its creation. */
import * as z from 'zod/mini';
import { LRS_SCOPES } from '../domain/xapi/scopes.ts';
import type { LrsCredentialRecord } from '../db/entities/lrs-credential.ts';

export const lrsCredentialSchema = z.object({
  key: z.string(),
  name: z.string(),
  scopes: z.array(z.enum(LRS_SCOPES)),
  created_by: z.int(),
  created_date: z.int(),
});

/** The answer to its creation: the secret, shown this once, and where the LRS answers. */
export const createdLrsCredentialSchema = z.object({
  ...lrsCredentialSchema.shape,
  secret: z.string(),
  endpoint: z.string(),
});

export type LrsCredentialView = z.output<typeof lrsCredentialSchema>;

export function lrsCredentialView(record: LrsCredentialRecord): LrsCredentialView {
  return {
    key: record.key,
    name: record.name,
    scopes: record.scopes,
    created_by: record.created_by,
    created_date: record.created,
  };
}
