/**
 * xAPI document resources (docs/lrs.md): activities/state, activities/profile, agents/profile.
 * One document by id (GET, PUT, POST merge, DELETE) or the ids of many (GET with `since`; state
 * also DELETE of every document of its scope). ETag is the SHA-1 of the content; If-Match and
 * If-None-Match are preconditions (412), and a profile PUT over an existing document without
 * either is a 409 (xAPI 1.0.3, Concurrency). POST merges JSON objects' top-level properties.
 */
import { createHash } from 'node:crypto';
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  PayloadTooLargeError,
  PreconditionFailedError,
} from '../../shared/domain/errors.ts';
import { checkActor, isIri, isObject, isTimestamp, isUuid } from '../../shared/domain/xapi/statement-rules.ts';
import { agentKey } from '../../shared/domain/xapi/statement-terms.ts';
import {
  deleteDocument,
  type DocumentKind,
  type DocumentRecord,
  type DocumentScope,
  documentObjectName,
  getDocument,
  listDocuments,
  putDocument,
} from '../../shared/db/entities/xapi-document.ts';
import { LostRace, retryOnLostRace } from '../../shared/db/retry.ts';
import { deleteByPrefixes, getObjectBytes, putObject } from '../../shared/storage/objects.ts';
import { xapiBucket, xapiDocumentKey } from '../../shared/storage/xapi-objects.ts';

/** A document up to this many bytes is kept in its table item (base64 in a 400 KB item). */
export const MAX_INLINE_BYTES = 256 * 1024;
/** Larger ones go to the bucket, up to this (a Lambda request body is at most 6 MB). */
export const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;

export type DocumentResource = 'state' | 'activityProfile' | 'agentProfile';

const PARAMS: Record<DocumentResource, { id: string; allowed: string[] }> = {
  state: { id: 'stateId', allowed: ['activityId', 'agent', 'registration', 'stateId', 'since'] },
  activityProfile: { id: 'profileId', allowed: ['activityId', 'profileId', 'since'] },
  agentProfile: { id: 'profileId', allowed: ['agent', 'profileId', 'since'] },
};

const KIND: Record<DocumentResource, DocumentKind> = {
  state: 'STATE',
  activityProfile: 'ACTPROFILE',
  agentProfile: 'AGENTPROFILE',
};

export interface DocumentRequest {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  query: URLSearchParams;
  headers: Record<string, string>;
  body: Buffer;
}

export type DocumentAnswer =
  | { kind: 'document'; record: DocumentRecord; content: Buffer }
  | { kind: 'ids'; ids: string[]; lastModified?: string }
  | { kind: 'none' };

function required(query: URLSearchParams, name: string): string {
  const value = query.get(name);
  if (value === null) throw new BadRequestError(`${name}: is required`);
  return value;
}

function agentParam(query: URLSearchParams): string {
  const text = required(query, 'agent');
  let agent: unknown;
  try {
    agent = JSON.parse(text);
  } catch {
    throw new BadRequestError('agent: must be an Agent as JSON');
  }
  checkActor(agent, 'agent');
  const key = agentKey(agent);
  if (!key) throw new BadRequestError('agent: needs an identifier');
  return key;
}

function activityParam(query: URLSearchParams): string {
  const activityId = required(query, 'activityId');
  if (!isIri(activityId)) throw new BadRequestError('activityId: must be an IRI');
  return activityId;
}

function scopeOf(resource: DocumentResource, query: URLSearchParams): DocumentScope {
  for (const name of query.keys())
    if (!PARAMS[resource].allowed.includes(name)) throw new BadRequestError(`${name}: is not a parameter here`);
  if (resource === 'agentProfile') return { kind: KIND[resource], scope: agentParam(query) };
  const activityId = activityParam(query);
  if (resource === 'activityProfile') return { kind: KIND[resource], scope: activityId };
  const agent = agentParam(query);
  const registration = query.get('registration') ?? undefined;
  if (registration !== undefined && !isUuid(registration)) throw new BadRequestError('registration: must be a UUID');
  return { kind: KIND[resource], scope: `${activityId}\n${agent}`, registration: registration?.toLowerCase() };
}

function etagOf(content: Buffer): string {
  return createHash('sha1').update(content).digest('hex');
}

/** The ETag a header names ("abc", W/"abc", abc), lower-cased. */
function etagsIn(header: string): string[] {
  return header.split(',').map((value) => value.trim().replace(/^W\//, '').replace(/^"|"$/g, '').toLowerCase());
}

function isJson(contentType: string | undefined): boolean {
  return (contentType ?? '').toLowerCase().trim().startsWith('application/json');
}

/** If-Match / If-None-Match against the stored document (412 when they do not hold). */
function checkPreconditions(headers: Record<string, string>, current: DocumentRecord | undefined): void {
  const ifMatch = headers['if-match'];
  if (ifMatch !== undefined) {
    const tags = etagsIn(ifMatch);
    if (!current || !(tags.includes('*') || tags.includes(current.etag)))
      throw new PreconditionFailedError('If-Match: the document has changed (or does not exist)');
  }
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined && current) {
    const tags = etagsIn(ifNoneMatch);
    if (tags.includes('*') || tags.includes(current.etag))
      throw new PreconditionFailedError('If-None-Match: the document exists');
  }
}

/** The document's bytes, from its item or the bucket. */
async function contentOf(record: DocumentRecord): Promise<Buffer> {
  if (record.object_key) return getObjectBytes(xapiBucket(), record.object_key, MAX_DOCUMENT_BYTES);
  return Buffer.from(record.content, 'base64');
}

/** Removes a document's bytes from the bucket once no item names them (best effort: a leftover is unread). */
async function dropObject(key: string | undefined, unless?: string): Promise<void> {
  if (!key || key === unless) return;
  await deleteByPrefixes(xapiBucket(), [key], (found) => found === key).catch(() => undefined);
}

export async function handleDocument(resource: DocumentResource, request: DocumentRequest): Promise<DocumentAnswer> {
  const { query, headers } = request;
  const scope = scopeOf(resource, query);
  const idName = PARAMS[resource].id;
  const docId = query.get(idName) ?? undefined;
  const since = query.get('since') ?? undefined;
  if (since !== undefined && !isTimestamp(since)) throw new BadRequestError('since: must be an ISO 8601 timestamp');
  if (since !== undefined && (docId !== undefined || request.method !== 'GET'))
    throw new BadRequestError('since: only for the GET of many documents');

  if (request.method === 'GET') {
    if (docId !== undefined) {
      const record = await getDocument(scope, docId);
      if (!record) throw new NotFoundError('No such document');
      return { kind: 'document', record, content: await contentOf(record) };
    }
    const sinceMs = since === undefined ? undefined : Date.parse(since);
    const records = (await listDocuments(scope)).filter(
      (r) => sinceMs === undefined || Date.parse(r.updated) > sinceMs,
    );
    const lastModified = records
      .map((r) => r.updated)
      .sort()
      .at(-1);
    return { kind: 'ids', ids: records.map((r) => r.doc_id), lastModified };
  }

  if (request.method === 'DELETE') {
    if (docId === undefined) {
      if (resource !== 'state') throw new BadRequestError(`${idName}: is required`);
      for (const record of await listDocuments(scope))
        if (await deleteDocument(scope, record.doc_id, record.etag)) await dropObject(record.object_key);
      return { kind: 'none' };
    }
    const current = await getDocument(scope, docId);
    checkPreconditions(headers, current);
    if (current && !(await deleteDocument(scope, docId, current.etag)))
      throw new PreconditionFailedError('The document changed meanwhile');
    await dropObject(current?.object_key);
    return { kind: 'none' };
  }

  if (docId === undefined) throw new BadRequestError(`${idName}: is required`);
  if (request.body.length > MAX_DOCUMENT_BYTES)
    throw new PayloadTooLargeError(`A document holds at most ${MAX_DOCUMENT_BYTES} bytes`);
  const contentType = headers['content-type'] ?? 'application/octet-stream';
  if (isJson(contentType)) {
    try {
      JSON.parse(request.body.toString('utf8'));
    } catch {
      throw new BadRequestError('The body is not the JSON its Content-Type says');
    }
  }
  await retryOnLostRace(async () => {
    const current = await getDocument(scope, docId);
    checkPreconditions(headers, current);
    const conditional = headers['if-match'] !== undefined || headers['if-none-match'] !== undefined;
    if (request.method === 'PUT' && resource !== 'state' && current && !conditional)
      throw new ConflictError('The document exists: send If-Match with its ETag (or If-None-Match: *)');
    let content = request.body;
    let storedType = contentType;
    if (request.method === 'POST' && current) {
      if (!isJson(current.content_type) || !isJson(contentType))
        throw new BadRequestError('POST merges JSON documents: both the stored and the sent one must be JSON');
      const stored = JSON.parse((await contentOf(current)).toString('utf8')) as unknown;
      const sent = JSON.parse(request.body.toString('utf8')) as unknown;
      if (!isObject(stored) || !isObject(sent)) throw new BadRequestError('POST merges JSON objects only');
      content = Buffer.from(JSON.stringify({ ...stored, ...sent }), 'utf8');
      storedType = 'application/json';
    } else if (request.method === 'POST' && isJson(contentType)) {
      if (!isObject(JSON.parse(request.body.toString('utf8'))))
        throw new BadRequestError('POST merges JSON objects only');
    }
    const etag = etagOf(content);
    const objectKey =
      content.length > MAX_INLINE_BYTES ? xapiDocumentKey(documentObjectName(scope, docId), etag) : undefined;
    // The bytes are in place before any item names them.
    if (objectKey) await putObject(xapiBucket(), objectKey, content, storedType);
    const record: DocumentRecord = {
      doc_id: docId,
      ...(scope.registration ? { registration: scope.registration } : {}),
      content_type: storedType,
      content: objectKey ? '' : content.toString('base64'),
      ...(objectKey ? { object_key: objectKey } : {}),
      etag,
      updated: new Date().toISOString(),
    };
    if (!(await putDocument(scope, record, current ? current.etag : null))) {
      await dropObject(objectKey, current?.object_key);
      throw new LostRace();
    }
    await dropObject(current?.object_key, objectKey);
  });
  return { kind: 'none' };
}
