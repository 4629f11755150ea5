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
/** How deep the walk goes, how many items of one array it looks into, and the longest path named. */
const IGNORED_DEPTH = 8;
const IGNORED_ITEMS = 100;
const IGNORED_PATH_MAX = 160;

interface SchemaDef {
  type: string;
  catchall?: unknown;
  shape?: Record<string, z.ZodMiniType>;
  innerType?: z.ZodMiniType;
  in?: z.ZodMiniType;
  element?: z.ZodMiniType;
  options?: z.ZodMiniType[];
}

const defOf = (schema: z.ZodMiniType) => (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Adds to `out` the paths of `input`'s fields that `schema` does not declare (see ignoredFields). */
function collectIgnored(schema: z.ZodMiniType, input: unknown, path: string, depth: number, out: string[]): void {
  if (out.length >= IGNORED_SHOWN || depth > IGNORED_DEPTH) return;
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
      if (def.innerType) collectIgnored(def.innerType, input, path, depth, out);
      return;
    case 'pipe':
      // The body as sent is the pipe's input.
      if (def.in) collectIgnored(def.in, input, path, depth, out);
      return;
    case 'array':
      if (!def.element || !Array.isArray(input)) return;
      for (const [index, item] of input.slice(0, IGNORED_ITEMS).entries())
        collectIgnored(def.element, item, `${path}[${index}]`, depth + 1, out);
      return;
    case 'union': {
      // The option the value is read as: the first that accepts it (none: the body is refused anyway).
      const option = def.options?.find((candidate) => candidate.safeParse(input).success);
      if (option) collectIgnored(option, input, path, depth, out);
      return;
    }
    case 'object': {
      // A loose object keeps every field; a strict one refuses unknown ones (422): neither drops any.
      if (def.catchall !== undefined || !def.shape || !isPlainObject(input)) return;
      const declared = def.shape;
      for (const name of Object.keys(input)) {
        if (!IGNORED_NAME.test(name)) continue;
        const named = path ? `${path}.${name}` : name;
        if (named.length > IGNORED_PATH_MAX) continue;
        if (!Object.hasOwn(declared, name)) {
          out.push(named);
          if (out.length >= IGNORED_SHOWN) return;
        } else collectIgnored(declared[name]!, input[name], named, depth + 1, out);
      }
      return;
    }
    default:
      return;
  }
}

/**
 * The fields of a JSON body that its schema does not declare, and so drops (decision 315; nested
 * ones by path, decision 332): named in the answer's X-Stepwise-Ignored-Fields header, never
 * refused. A nested field is named by its path (`steps[0].foo`, `parts[2].colour`): the walk
 * follows declared fields, array items (the first 100) and, in a union, the option that accepts
 * the value. Nothing is named where the schema keeps unknown fields (loose objects) or at the
 * top of a body that is not a plain object. At most 20 paths, each of plain field names
 * (others are left out: a header carries no arbitrary text), 8 levels deep at most.
 */
export function ignoredFields(schema: z.ZodMiniType, input: unknown): string[] {
  if (!isPlainObject(input)) return [];
  const out: string[] = [];
  collectIgnored(schema, input, '', 0, out);
  return out;
}
