/** Turns zod issues into the 422 body's per-field `errors` (field, code, message). */
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { missingRevisionid, ValidationError, type FieldProblem } from '../domain/errors.ts';

// Only the English locale: `z.locales` as a namespace would bundle every language.
z.config(en());

function fieldName(path: PropertyKey[]): string {
  return path.map(String).join('.') || 'body';
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function problemFor(issue: z.core.$ZodIssue, input: unknown, what: string): FieldProblem {
  const field = fieldName(issue.path);
  // Whatever the schema (type, enum, literal), an absent field is reported as missing.
  if (issue.path.length > 0 && valueAt(input, issue.path) === undefined) {
    // The query parameter every revisioned write names; clients often send it in the body instead.
    if (what === 'query' && field === 'revisionid') return missingRevisionid().errors[0]!;
    return { field, code: 'missing_field', message: `${field} is required` };
  }
  return { field, code: issue.code, message: `${field}: ${issue.message}` };
}

/** Parses input with a schema, or throws a 422 ValidationError naming every bad field. */
export function parseOrThrow<T>(schema: z.ZodMiniType<T>, input: unknown, what: string): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const errors = result.error.issues.map((issue) => problemFor(issue, input, what));
  const first = errors[0];
  throw new ValidationError(first ? `Invalid ${what}: ${first.message}` : `Invalid ${what}`, errors);
}

const IGNORED_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const IGNORED_SHOWN = 20;

/**
 * The top-level fields of a JSON body that its object schema does not declare, and so drops
 * (decision 315): named in the answer's X-Stepwise-Ignored-Fields header, never refused. Empty
 * where the schema is not a plain object (loose objects keep every field). At most 20 names, each
 * a plain field name (others are left out: a header carries no arbitrary text).
 */
export function ignoredFields(schema: z.ZodMiniType, input: unknown): string[] {
  const def = (schema as { _zod: { def: { type: string; catchall?: unknown; shape?: object } } })._zod.def;
  if (def.type !== 'object' || def.catchall !== undefined || !def.shape) return [];
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return [];
  const declared = def.shape;
  return Object.keys(input)
    .filter((name) => !Object.hasOwn(declared, name) && IGNORED_NAME.test(name))
    .slice(0, IGNORED_SHOWN);
}
