/**
 * Client-made ids (issue 30 §2, decision 224): a device names what it creates with a UUID of its
 * own, `client_guid`, unique per user and kind of record, so a create sent twice (a retry, a
 * resent offline journal) makes one record. The second send answers the record already made
 * (200) when it asks for the same thing, and 409 when it asks for something else under the
 * same guid. Pure rules here; the claim is a uniqueness item (shared/db/client-guid.ts).
 */
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { ConflictError } from './errors.ts';

/** The one name of the field everywhere (like the spec's own `field_guid`). */
export const CLIENT_GUID_FIELD = 'client_guid';

/** A UUID as devices make them (any version), in any case; stored lower case. */
export const clientGuidSchema = z.pipe(
  z
    .string()
    .check(z.regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a UUID')),
  z.transform((value: string) => value.toLowerCase()),
);

/** The kinds of record a client guid names; each kind has its own guids per user. */
export type ClientGuidKind =
  | 'work_log'
  | 'step_data'
  | 'comment'
  | 'signoff_request'
  | 'quiz_answer'
  | 'sync'
  | 'acknowledgement';

/** What a create asked for, as a short hash: JSON with sorted keys, so field order does not matter. */
export function requestFingerprint(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('base64url');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** A record already made under a guid: what it is, and what the create that made it asked for. */
export interface ClientGuidHolder {
  /** The record's id (as a string: entry ids are numbers, others may not be). */
  ref: string;
  fingerprint: string;
}

/**
 * A second create under a held guid: the same request answers the record (`existing()`), another
 * one is a 409 carrying the record as it is.
 */
export async function answerHeldGuid<T>(
  holder: ClientGuidHolder,
  fingerprint: string,
  existing: () => Promise<T>,
): Promise<T> {
  const current = await existing();
  if (holder.fingerprint !== fingerprint) {
    const message = `${CLIENT_GUID_FIELD} already names another record of yours, made from another request`;
    throw new ConflictError(message, { message, ...(current as object) });
  }
  return current;
}

/** What a create with a client guid answers: made now (201) or made before (200). */
export interface Created<T> {
  created: boolean;
  record: T;
}
