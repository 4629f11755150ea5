/**
 * Uniqueness items: one item per unique value (email, username, sso id ...), written in the
 * same transaction as the record that claims it, so two records can never hold one value.
 */
import { tableName } from './client.ts';
import { createItemWrite, type LabelledWrite } from './transactions.ts';

export type UniqueKind =
  | 'EMAIL'
  | 'UNIQUE_USERNAME'
  | 'SSO'
  | 'EMPLOYEE_ID'
  /** A SCIM userName as sent (decision 284); compared without case, as RFC 7643 says. */
  | 'SCIM_USERNAME'
  | 'WIKI_TITLE'
  | 'GLOSSARY_TERM'
  | 'PERIODIC_REVIEW_DOC'
  | 'COURSE_ASSIGNEE'
  /** A client-made id of a user's record (client-guid.ts, decision 224). */
  | 'CLIENT_GUID';

export function normalizeUnique(kind: UniqueKind, value: string): string {
  return kind === 'EMAIL' || kind === 'UNIQUE_USERNAME' || kind === 'SCIM_USERNAME'
    ? value.trim().toLowerCase()
    : value.trim();
}

export function uniqueKey(kind: UniqueKind, value: string) {
  return { pk: `UNIQUE#${kind}#${normalizeUnique(kind, value)}`, sk: 'UNIQUE' };
}

/** Claims a value for an owner; fails (label = kind) if anyone holds it already. */
export function claimUnique(kind: UniqueKind, value: string, owner: Record<string, unknown>): LabelledWrite {
  return createItemWrite(kind, { ...uniqueKey(kind, value), entity: 'Unique', kind, ...owner });
}

/** Releases a value the owner held (when it changes or the owner is removed). */
export function releaseUnique(kind: UniqueKind, value: string): LabelledWrite {
  return { label: `release:${kind}`, item: { Delete: { TableName: tableName(), Key: uniqueKey(kind, value) } } };
}
