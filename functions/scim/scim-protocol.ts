/**
 * The SCIM 2.0 wire (RFC 7643/7644) shared by the Users and Groups services: answers in
 * application/scim+json, errors in the RFC's format, ETags, list responses and PATCH operations
 * in the forms Okta and Entra ID send (docs/identity.md).
 */
import { createHash } from 'node:crypto';
import { rawReply, type Reply } from '../../shared/http/route.ts';
import { RequestError } from '../../shared/http/respond.ts';
import { siteUrl } from '../../shared/config.ts';
import { canonicalJson } from '../../shared/domain/canonical-json.ts';
import { SCIM_CONTENT_TYPE, SCIM_ERROR_SCHEMA, scimErrorBody } from '../../shared/http/scim-error.ts';

export { SCIM_CONTENT_TYPE };
export const SCHEMA = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  enterpriseUser: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
  list: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patch: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  error: SCIM_ERROR_SCHEMA,
} as const;

/** RFC 7644 §3.12 scimType values this service answers with. */
export type ScimType =
  | 'invalidFilter'
  | 'invalidValue'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'uniqueness'
  | 'mutability'
  | 'tooMany';

/** An error with its SCIM status and scimType; the group's error renderer shows it. */
export class ScimError extends RequestError {
  constructor(
    status: number,
    message: string,
    readonly scimType?: ScimType,
  ) {
    super(status, message);
  }
}

/** The group's `routeError`: every error as an RFC 7644 error body. */
export function scimErrorReply(status: number, message: string, error?: unknown): Reply {
  const scimType = error instanceof ScimError ? error.scimType : status === 422 ? 'invalidValue' : undefined;
  // SCIM has no 422: a body the schemas refuse is a 400 invalidValue.
  const shown = status === 422 ? 400 : status;
  return scimReply(shown, scimErrorBody(shown, message, scimType));
}

export function scimReply(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return rawReply(status, JSON.stringify(body), SCIM_CONTENT_TYPE, headers);
}

export function scimBase(): string {
  return `${siteUrl()}/scim/v2`;
}

/** A resource's version: a weak ETag of its representation (meta aside), so any change moves it. */
export function etagOf(resource: Record<string, unknown>): string {
  const { meta: _meta, ...content } = resource;
  return `W/"${createHash('sha256').update(canonicalJson(content)).digest('hex').slice(0, 20)}"`;
}

/** If-Match (RFC 7644 §3.14): a write to a resource whose version is not listed is 412. */
export function checkIfMatch(ifMatch: string | undefined, current: string): void {
  if (ifMatch === undefined || ifMatch.trim() === '*') return;
  const listed = ifMatch.split(',').map((tag) => tag.trim());
  if (!listed.includes(current))
    throw new ScimError(412, 'The resource changed since that version (If-Match)', undefined);
}

/**
 * A resource answer with its ETag header and meta.version, both of the whole resource; `project`
 * (the request's attributes/excludedAttributes) shapes what is shown after.
 */
export function resourceReply(
  status: number,
  resource: Record<string, unknown>,
  project: (shown: Record<string, unknown>) => Record<string, unknown> = (shown) => shown,
): Reply {
  const version = etagOf(resource);
  const meta: Record<string, unknown> = { ...(resource.meta as Record<string, unknown>), version };
  return scimReply(status, project({ ...resource, meta }), {
    etag: version,
    ...(status === 201 ? { location: String(meta.location) } : {}),
  });
}

export function withVersion(resource: Record<string, unknown>): Record<string, unknown> {
  return { ...resource, meta: { ...(resource.meta as Record<string, unknown>), version: etagOf(resource) } };
}

/** The most resources one list answer holds (ServiceProviderConfig's filter.maxResults). */
export const MAX_RESULTS = 200;

/** startIndex (1-based) and count of a list request, as RFC 7644 §3.4.2.4 reads them. */
export function listWindow(query: ListQuery) {
  const startIndex = Math.max(1, Number.parseInt(query.startIndex ?? '1', 10) || 1);
  const asked = query.count === undefined ? MAX_RESULTS : Number.parseInt(query.count, 10);
  const count = Number.isNaN(asked) ? MAX_RESULTS : Math.min(Math.max(0, asked), MAX_RESULTS);
  return { startIndex, count };
}

export interface ListQuery {
  startIndex?: string;
  count?: string;
}

/**
 * The ListResponse of a Users or Groups search: `matches` in the service's order, cut to the
 * request's window before `resourcesOf` builds them, so a page costs the reads of its own
 * resources only; `totalResults` counts every match.
 */
export async function listPage<T>(
  matches: T[],
  query: ListQuery,
  resourcesOf: (page: T[]) => Promise<Record<string, unknown>[]>,
) {
  const { startIndex, count } = listWindow(query);
  const window = matches.slice(startIndex - 1, startIndex - 1 + count);
  const page = window.length ? (await resourcesOf(window)).map(withVersion) : [];
  return {
    schemas: [SCHEMA.list],
    totalResults: matches.length,
    startIndex,
    itemsPerPage: page.length,
    Resources: page,
  };
}

export interface PatchOperation {
  op: 'add' | 'replace' | 'remove';
  path?: string;
  value?: unknown;
}

/** The operations of a PatchOp body; ops in any case ("Replace" from Entra ID). */
export function patchOperations(body: unknown): PatchOperation[] {
  const operations = (body as { Operations?: unknown } | undefined)?.Operations;
  if (!Array.isArray(operations) || operations.length === 0)
    throw new ScimError(400, 'A PATCH body lists its Operations', 'invalidSyntax');
  return operations.map((raw) => {
    const operation = raw as { op?: unknown; path?: unknown; value?: unknown };
    const op = typeof operation.op === 'string' ? operation.op.toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove')
      throw new ScimError(400, `Unknown PATCH op ${String(operation.op)}`, 'invalidSyntax');
    if (operation.path !== undefined && typeof operation.path !== 'string')
      throw new ScimError(400, 'A PATCH path is a string', 'invalidPath');
    if (op === 'remove' && operation.path === undefined)
      throw new ScimError(400, 'A remove names its path', 'noTarget');
    return { op, path: operation.path as string | undefined, value: operation.value };
  });
}

/** Entra ID sends booleans as "True"/"False". */
export function booleanValue(value: unknown, field: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw new ScimError(400, `${field} is true or false`, 'invalidValue');
}

export function stringValue(value: unknown, field: string, max = 200): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > max)
    throw new ScimError(400, `${field} is a string of 1 to ${max} characters`, 'invalidValue');
  return value.trim();
}

export function isoDate(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}
