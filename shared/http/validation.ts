/** Turns zod issues into the 422 body's per-field `errors` (field, code, message). */
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { ValidationError, type FieldProblem } from '../domain/errors.ts';

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

function problemFor(issue: z.core.$ZodIssue, input: unknown): FieldProblem {
  const field = fieldName(issue.path);
  // Whatever the schema (type, enum, literal), an absent field is reported as missing.
  if (issue.path.length > 0 && valueAt(input, issue.path) === undefined) {
    return { field, code: 'missing_field', message: `${field} is required` };
  }
  return { field, code: issue.code, message: `${field}: ${issue.message}` };
}

/** Parses input with a schema, or throws a 422 ValidationError naming every bad field. */
export function parseOrThrow<T>(schema: z.ZodMiniType<T>, input: unknown, what: string): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const errors = result.error.issues.map((issue) => problemFor(issue, input));
  const first = errors[0];
  throw new ValidationError(first ? `Invalid ${what}: ${first.message}` : `Invalid ${what}`, errors);
}
