/**
 * The site file: JSON Lines, one typed record per line (docs/export-format.md). Exports write it,
 * imports read it, and the migration crawler produces the same records from a live API 2.0 site.
 *
 * A record holds one table item verbatim, in DynamoDB JSON (the AttributeValue map the low-level
 * client reads and writes), so nothing is lost in transit: ids, revisions, dates, authorship,
 * audit chains and credential hashes come back exactly as they were. S3 objects (media files,
 * module packages) travel in the same file as base64 chunks, so one file is the whole site.
 */
import * as z from 'zod/mini';
import { entityOfKey } from '../db/entity-schemas.ts';

export const SITE_FORMAT = 'stepwise-site';
export const SITE_FORMAT_VERSION = 1;
/** Raw bytes per `object_chunk` record (base64 makes a line of about 350 KB). */
export const OBJECT_CHUNK_BYTES = 256 * 1024;

/** Which bucket an object came from; the importer writes it back to the same role's bucket. */
export const bucketRoleSchema = z.enum(['media', 'modules']);
export type BucketRole = z.infer<typeof bucketRoleSchema>;

const attributeValueMap = z.record(z.string(), z.unknown());

export const headerRecordSchema = z.object({
  type: z.literal('header'),
  format: z.literal(SITE_FORMAT),
  format_version: z.literal(SITE_FORMAT_VERSION),
  created_at: z.string(),
  source: z.object({
    /** `export`: a Stepwise site's own export; `migration`: crawled from a live API 2.0 site. */
    kind: z.enum(['export', 'migration']),
    base_url: z.nullable(z.string()),
  }),
});

export const itemRecordSchema = z.object({
  type: z.literal('item'),
  /** The item's `entity` attribute, or the name `entityOf` derives from its key. */
  entity: z.string().check(z.minLength(1)),
  item: attributeValueMap,
});

export const objectRecordSchema = z.object({
  type: z.literal('object'),
  bucket: bucketRoleSchema,
  key: z.string().check(z.minLength(1)),
  content_type: z.nullable(z.string()),
  size: z.int().check(z.nonnegative()),
  sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  /** How many `object_chunk` records follow, in order, right after this one. */
  chunks: z.int().check(z.nonnegative()),
});

export const objectChunkRecordSchema = z.object({
  type: z.literal('object_chunk'),
  bucket: bucketRoleSchema,
  key: z.string().check(z.minLength(1)),
  index: z.int().check(z.nonnegative()),
  data: z.string(),
});

export const endRecordSchema = z.object({
  type: z.literal('end'),
  /** Records before this one, the header included: a shorter file was cut. */
  records: z.int().check(z.nonnegative()),
  counts: z.record(z.string(), z.int()),
  objects: z.int().check(z.nonnegative()),
});

export const siteRecordSchema = z.discriminatedUnion('type', [
  headerRecordSchema,
  itemRecordSchema,
  objectRecordSchema,
  objectChunkRecordSchema,
  endRecordSchema,
]);

export type HeaderRecord = z.infer<typeof headerRecordSchema>;
export type ItemRecord = z.infer<typeof itemRecordSchema>;
export type ObjectRecord = z.infer<typeof objectRecordSchema>;
export type ObjectChunkRecord = z.infer<typeof objectChunkRecordSchema>;
export type EndRecord = z.infer<typeof endRecordSchema>;
export type SiteRecord = z.infer<typeof siteRecordSchema>;

/** Items written without an `entity` attribute, named by their partition key's prefix. */
const ENTITY_BY_KEY_PREFIX: Record<string, string> = {
  COUNTER: 'Counter',
  ATTEMPTS: 'AttemptCounter',
  OUTBOX: 'OutboxEvent',
  EMITTED: 'EmittedMarker',
  QUIZCOUNT: 'QuizCount',
};

/** Items written without an `entity` attribute under another entity's partition, named by sort key. */
const ENTITY_BY_SORT_KEY: Record<string, string> = {
  TRAINSUMMARY: 'TrainingSummary',
};

/**
 * The record name of a table item (plain or DynamoDB JSON): what its key says it is
 * (shared/db/entity-schemas.ts, decision 164), else its `entity`, else its key prefix.
 */
export function entityOf(item: Record<string, unknown>): string {
  const byKey = entityOfKey(plainString(item.pk) ?? '', plainString(item.sk) ?? '');
  if (byKey) return byKey.entity;
  const entity = plainString(item.entity);
  if (entity) return entity;
  const bySortKey = ENTITY_BY_SORT_KEY[plainString(item.sk) ?? ''];
  if (bySortKey) return bySortKey;
  const pk = plainString(item.pk) ?? '';
  const prefix = pk.split('#')[0];
  return ENTITY_BY_KEY_PREFIX[prefix] ?? `Unknown:${prefix}`;
}

/**
 * Entities an export leaves out: short-lived secrets and counters of attempts that expire on
 * their own (a restored site starts without them), secrets sealed under this deployment's key
 * (identity providers), events already handed to the outbox (a restore must not send webhooks a
 * second time), and the site's API tokens (service credentials of the site that issued them: an
 * Admin makes new ones where the file is restored).
 */
export const TRANSIENT_ENTITIES: ReadonlySet<string> = new Set([
  'ApiToken',
  // The LRS's credentials, for the same reason as API tokens (docs/lrs.md).
  'LrsCredential',
  // A cmi5 launch session holds its AU's auth-token (a credential) and lives for a session (docs/lrs.md).
  'Cmi5Session',
  'AttemptCounter',
  'ResetLink',
  'SigningToken',
  'SignoffFinalizeToken',
  'OutboxEvent',
  'WebhookDelivery',
  // The search index's head: derived data, rebuilt by the import (decision 208).
  'SearchIndexHead',
  // Which OpenSearch indexes the site reads: names the target's own indexes, rebuilt by the import (decision 329).
  'SearchGeneration',
  'IdempotencyRecord',
  // Company sign-in (docs/identity.md): one-time login states and used-assertion marks expire
  // on their own; identity providers hold secrets sealed under this deployment's key
  // (STEPWISE_SECRETS_KEY), which would not open elsewhere: the Admin sets them up again.
  'IdentityProvider',
  'SsoReplay',
  'SsoLoginState',
  'StepUp',
  'StepUpTicket',
]);

function plainString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { S?: unknown }).S === 'string') {
    return (value as { S: string }).S;
  }
  return undefined;
}
