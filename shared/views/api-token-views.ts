/** Site API tokens on the wire (Admins only; decision 227): never the token after its creation. */
import * as z from 'zod/mini';
import { API_SCOPES } from '../domain/caller.ts';
import type { ApiTokenRecord } from '../db/entities/api-token.ts';

export const apiTokenSchema = z.object({
  tokenid: z.string(),
  name: z.string(),
  scopes: z.array(z.enum(API_SCOPES)),
  created_by: z.int(),
  created_date: z.int(),
  /** Epoch seconds, to the minute; null until it is first used. */
  last_used_date: z.nullable(z.int()),
});

/** The answer to its creation: the token itself, shown this once. */
export const createdApiTokenSchema = z.object({
  ...apiTokenSchema.shape,
  token: z.string(),
});

export type ApiTokenView = z.output<typeof apiTokenSchema>;

export function apiTokenView(record: ApiTokenRecord): ApiTokenView {
  return {
    tokenid: record.tokenid,
    name: record.name,
    scopes: record.scopes,
    created_by: record.created_by,
    created_date: record.created,
    last_used_date: record.last_used ?? null,
  };
}
