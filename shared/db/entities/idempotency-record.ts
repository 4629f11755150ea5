/**
 * Idempotency records (decision 223): what Powertools' idempotency utility stores for a request
 * sent with `Idempotency-Key`, in our one table. Powertools writes and reads the item itself
 * (DynamoDBPersistenceLayer); this file only chooses its key and names its attributes:
 *   pk IDEMPOTENCY#<owner>    (Powertools' `staticPkValue`: one partition per caller, so a key
 *                              is scoped to its caller and no partition holds everyone's; the
 *                              owner is a person's userid or a token's `token-<tokenid>`,
 *                              decision 262)
 *   sk request#<sha256 of the key, base64>   (Powertools' hashed idempotency key)
 *   ttl (its expiry, epoch seconds: our table's TTL attribute), status, in_progress_expiration
 *   (epoch ms), validation (hash of method, path, query and body), data (the stored answer).
 * Short-lived bookkeeping: it never travels in a site file (docs/export-format.md).
 */
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import * as z from 'zod/mini';
import { rawDb, tableName } from '../client.ts';
import { KEY, TTL_ATTRIBUTE } from '../table.ts';
import type { OwnerKey } from '../../domain/caller.ts';

/** The answer kept for a replay: only what the wire needs, never a credential (decision 223). */
export const storedAnswerSchema = z.strictObject({
  status: z.int(),
  headers: z.optional(z.record(z.string(), z.string())),
  body: z.string(),
  base64: z.optional(z.boolean()),
  /** The answer was too large to keep: a repeat of the key is a 409. */
  too_large: z.optional(z.boolean()),
});

/** An IdempotencyRecord item as Powertools writes it with the names below. */
export const idempotencyRecordItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  ttl: z.number(),
  status: z.enum(['INPROGRESS', 'COMPLETED', 'EXPIRED']),
  in_progress_expiration: z.optional(z.number()),
  validation: z.optional(z.string()),
  data: z.optional(storedAnswerSchema),
});

/** The sort key's prefix (Powertools' `keyPrefix`): one kind of idempotent work, HTTP requests. */
export const IDEMPOTENCY_KEY_PREFIX = 'request';

/**
 * A persistence layer for one caller's keys. One per request: Powertools configures a layer
 * once and keeps its settings, and the caller's partition is part of them. Cheap: the DynamoDB
 * client is the table's own.
 */
export function idempotencyStore(owner: OwnerKey): DynamoDBPersistenceLayer {
  return new DynamoDBPersistenceLayer({
    tableName: tableName(),
    awsSdkV3Client: rawDb(),
    keyAttr: KEY.pk,
    sortKeyAttr: KEY.sk,
    staticPkValue: `IDEMPOTENCY#${owner}`,
    expiryAttr: TTL_ATTRIBUTE,
    inProgressExpiryAttr: 'in_progress_expiration',
    statusAttr: 'status',
    dataAttr: 'data',
    validationKeyAttr: 'validation',
  });
}
