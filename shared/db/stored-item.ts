/**
 * Reads checked against the entity's declaration. Every item an entity file hands to a service is
 * parsed through the zod schema its writes are declared by (`<entity>ItemSchema`): an item that
 * does not match is a StoredItemError naming the key and the field, thrown at the read, never a
 * TypeError from deep inside a view. The record type is the schema's output without the key
 * attributes, so there is no cast between the table and the service (decision 202).
 */
import type * as z from 'zod/mini';
import { withoutKeys } from './keys.ts';

/** Any zod/mini schema of a plain (unmarshalled) item. */
export type StoredSchema = z.ZodMiniType<unknown, Record<string, unknown>>;

/** The attributes a table item carries for its keys and indexes, stripped from records. */
export type KeyAttribute = 'pk' | 'sk' | 'gsi1pk' | 'gsi1sk' | 'gsi2pk' | 'gsi2sk' | 'entity' | 'ttl';

/** The record an entity file hands out: its item's declared shape, keys stripped. */
export type StoredRecord<S extends StoredSchema> = Omit<z.output<S>, KeyAttribute>;

type Flat<T> = { [K in keyof T]: T[K] } & {};

/**
 * The record of an entity whose reader fills in attributes older items lack (a count absent
 * before it existed read as 0, a list as []): its schema's record with `Filled` always present.
 */
export type FilledRecord<S extends StoredSchema, Filled extends keyof StoredRecord<S>> = Flat<
  Omit<StoredRecord<S>, Filled> & { [K in Filled]-?: Exclude<StoredRecord<S>[K], undefined> }
>;

/**
 * The record of an entity whose reader hands some attributes out otherwise than they are stored
 * (0 for none read as null; a search copy left out): the schema's record with only the
 * differences written down.
 */
export type StoredRecordAs<S extends StoredSchema, Read extends { [K in keyof StoredRecord<S>]?: unknown }> = Flat<
  Omit<StoredRecord<S>, keyof Read> & Read
>;

/** An item read from the table does not match its entity's declaration. Answered as a 500. */
export class StoredItemError extends Error {
  constructor(
    readonly key: { pk: unknown; sk: unknown },
    readonly problem: string,
  ) {
    super(`Stored item ${String(key.pk)} / ${String(key.sk)} does not match its declaration: ${problem}`);
    this.name = 'StoredItemError';
  }
}

/** The item as its schema declares it, or a StoredItemError naming its key and the first wrong field. */
export function parseStored<S extends StoredSchema>(schema: S, item: Record<string, unknown>): z.output<S> {
  const parsed = schema.safeParse(item);
  if (parsed.success) return parsed.data;
  throw new StoredItemError({ pk: item.pk, sk: item.sk }, schemaProblem(parsed.error.issues, item) ?? 'item: invalid');
}

/** The record of a stored item: parsed through its schema, key attributes stripped. */
export function recordFrom<S extends StoredSchema>(schema: S, item: Record<string, unknown>): StoredRecord<S> {
  return withoutKeys(parseStored(schema, item) as Record<string, unknown>) as StoredRecord<S>;
}

/** A reader for lists: `items.map(recordsOf(schema))`. */
export function recordsOf<S extends StoredSchema>(schema: S): (item: Record<string, unknown>) => StoredRecord<S> {
  return (item) => recordFrom(schema, item);
}

/**
 * The first problem of a plain item against a schema, naming the field and what was wrong
 * ("username: expected string, got number"; "item: attributes it never writes: is_admin").
 * zod/mini carries no messages of its own, so they are spelled here.
 */
export function schemaProblem(issues: readonly z.core.$ZodIssue[], plain: Record<string, unknown>): string | undefined {
  const issue = issues[0];
  if (!issue) return undefined;
  const path = issue.path.map(String).join('.') || 'item';
  return `${path}: ${describeIssue(issue, valueAt(plain, issue.path))}`;
}

function valueAt(plain: unknown, path: readonly PropertyKey[]): unknown {
  let value = plain;
  for (const step of path)
    value = value && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[step] : undefined;
  return value;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Set) return 'set';
  if (typeof value === 'object') return 'map';
  if (typeof value === 'number' && !Number.isInteger(value)) return 'non-integer number';
  return typeof value;
}

function describeIssue(issue: z.core.$ZodIssue, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected}, got ${kindOf(value)}`;
    case 'unrecognized_keys':
      return `attributes it never writes: ${issue.keys.join(', ')}`;
    case 'invalid_value': {
      const allowed = issue.values.map((option) => JSON.stringify(option)).join(' | ');
      return `expected ${allowed}, got ${JSON.stringify(value)}`;
    }
    case 'too_small':
    case 'too_big':
      return `out of range (${JSON.stringify(value)})`;
    case 'invalid_format':
      return `not in the form it is written (${JSON.stringify(value)})`;
    case 'invalid_union':
      return `not one of the forms it is written in (got ${kindOf(value)})`;
    default:
      return issue.message;
  }
}
