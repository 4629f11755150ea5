/**
 * xAPI documents of the site's own LRS (docs/lrs.md): activity state, activity profiles and
 * agent profiles. pk XDOC#<kind>#<hash of its scope> / sk <hash of the registration or ->#<hash
 * of the document id>: one partition per activity+agent (state), activity (activity profile)
 * or agent (agent profile), so the multiple-document GET and DELETE are one Query of it.
 * Content is kept as base64 (any media type); ETag is the SHA-1 of the bytes. Writes are
 * conditioned on the ETag read, so If-Match / If-None-Match and the JSON merge of POST hold
 * under concurrent writers.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { queryAll } from '../paging.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import { isConditionFailed } from '../retry.ts';
import { sha256Hex } from '../../domain/secrets.ts';

export const DOCUMENT_KINDS = ['STATE', 'ACTPROFILE', 'AGENTPROFILE'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

export const documentItemSchema = z.strictObject({
  pk: z.string().check(z.regex(/^XDOC#(STATE|ACTPROFILE|AGENTPROFILE)#[0-9a-f]{64}$/)),
  sk: z.string().check(z.regex(/^(-|[0-9a-f]{64})#[0-9a-f]{64}$/)),
  entity: z.literal('XapiDocument'),
  doc_id: z.string(),
  /** The registration a state document belongs to, if any. */
  registration: z.optional(z.string()),
  content_type: z.string(),
  /** The bytes as base64, or '' when they are in the bucket (`object_key`). */
  content: z.string(),
  /** Where a document too large for its item keeps its bytes (shared/storage/xapi-objects.ts). */
  object_key: z.optional(z.string()),
  etag: z.string(),
  /** ISO 8601, ms: Last-Modified and the `since` filter. */
  updated: z.string(),
});

export type DocumentRecord = StoredRecord<typeof documentItemSchema>;

/** Where a document lives: its kind, its scope (activity, agent, both) and its registration. */
export interface DocumentScope {
  kind: DocumentKind;
  scope: string;
  registration?: string;
}

function partitionOf(scope: DocumentScope): string {
  return `XDOC#${scope.kind}#${sha256Hex(scope.scope)}`;
}

function registrationPrefix(scope: DocumentScope): string {
  return `${scope.registration ? sha256Hex(scope.registration.toLowerCase()) : '-'}#`;
}

export function documentKey(scope: DocumentScope, docId: string) {
  return { pk: partitionOf(scope), sk: registrationPrefix(scope) + sha256Hex(docId) };
}

/** A name for the document's objects in the bucket: a hash of its key, stable across writes. */
export function documentObjectName(scope: DocumentScope, docId: string): string {
  const key = documentKey(scope, docId);
  return sha256Hex(`${key.pk}\n${key.sk}`);
}

export async function getDocument(scope: DocumentScope, docId: string): Promise<DocumentRecord | undefined> {
  const item = await getItem(documentKey(scope, docId), { consistent: true });
  return item ? recordFrom(documentItemSchema, item) : undefined;
}

/** Every document of the scope (and registration): a Query of its partition. */
export async function listDocuments(scope: DocumentScope): Promise<DocumentRecord[]> {
  const items = await queryAll({
    partition: partitionOf(scope),
    sortPrefix: registrationPrefix(scope),
    consistent: true,
  });
  return items.map(recordsOf(documentItemSchema));
}

/**
 * Writes the document only while the stored one has the ETag `expected` (`null`: only while there
 * is none; undefined: whatever is there). False when that condition failed.
 */
export async function putDocument(
  scope: DocumentScope,
  record: DocumentRecord,
  expected: string | null | undefined,
): Promise<boolean> {
  const condition =
    expected === null ? 'attribute_not_exists(pk)' : expected === undefined ? undefined : 'etag = :etag';
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...documentKey(scope, record.doc_id),
          entity: 'XapiDocument',
          ...record,
        } satisfies z.input<typeof documentItemSchema>,
        ConditionExpression: condition,
        ExpressionAttributeValues: expected ? { ':etag': expected } : undefined,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

/** Deletes the document only while it has the ETag `expected` (when given). False when that failed. */
export async function deleteDocument(scope: DocumentScope, docId: string, expected?: string): Promise<boolean> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: documentKey(scope, docId),
        ConditionExpression: expected ? 'etag = :etag' : undefined,
        ExpressionAttributeValues: expected ? { ':etag': expected } : undefined,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}
