/**
 * The one DynamoDB table: its key attributes and indexes. CDK, the local launcher and every
 * entity file read these names from here.
 */
export const KEY = { pk: 'pk', sk: 'sk' } as const;

export const INDEXES = {
  /** Collections by type and by owner: lists of users, teams, guides ... ordered by id. */
  gsi1: { name: 'gsi1', pk: 'gsi1pk', sk: 'gsi1sk' },
  /** Lookups by a second natural order (name prefix search, due dates, ...). */
  gsi2: { name: 'gsi2', pk: 'gsi2pk', sk: 'gsi2sk' },
} as const;

/** Epoch-seconds attribute DynamoDB TTL deletes by (tokens, throttles, reset links). */
export const TTL_ATTRIBUTE = 'ttl';

/** Every attribute that takes part in a key, with its DynamoDB type (all strings). */
export const KEY_ATTRIBUTES = [KEY.pk, KEY.sk, INDEXES.gsi1.pk, INDEXES.gsi1.sk, INDEXES.gsi2.pk, INDEXES.gsi2.sk];
