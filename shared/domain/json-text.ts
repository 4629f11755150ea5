/**
 * Bounds on JSON input that a schema cannot express: nesting depth (checked on the text, before
 * parsing) and well-formed Unicode in every string and key (JSON's `\ud800` escape yields a lone
 * surrogate, which no URL encoder, UTF-8 writer or client can take). Used on request bodies by
 * shared/http and on JSON text carried inside a field (quiz responses, form options).
 */
import { ValidationError, type FieldProblem } from './errors.ts';
import { isWellFormedText, toWellFormedText } from './text.ts';

/**
 * The deepest nesting of arrays and objects accepted. Real payloads (guides, quiz definitions,
 * forms) stay under 20; code that walks a parsed value recursively is then safe.
 */
export const MAX_JSON_DEPTH = 64;

/** At most this many malformed strings are named in one 422. */
const MAX_REPORTED = 20;

/**
 * True when the JSON text nests arrays/objects deeper than `max`. One pass over the characters,
 * no recursion and no parsing, so a hostile text cannot exhaust the stack; brackets inside
 * strings do not count. Malformed text is left for JSON.parse to refuse.
 */
export function jsonNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c /* backslash */) i++;
      else if (char === 0x22 /* " */) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x5b /* [ */ || char === 0x7b /* { */) {
      if (++depth > max) return true;
    } else if (char === 0x5d /* ] */ || char === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}

function joinPath(prefix: string, key: string): string {
  return prefix === '' ? key : `${prefix}.${key}`;
}

/**
 * Paths (`parts.0.name`; `root` for the value itself) of strings and keys that are not
 * well-formed Unicode, at most 20. Iterative, so any depth is safe.
 */
export function malformedTextPaths(value: unknown, root: string): string[] {
  const found: string[] = [];
  const pending: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (pending.length > 0 && found.length < MAX_REPORTED) {
    const next = pending.pop()!;
    if (typeof next.value === 'string') {
      if (!isWellFormedText(next.value)) found.push(next.path || root);
    } else if (next.value !== null && typeof next.value === 'object') {
      for (const [key, child] of Object.entries(next.value)) {
        // A malformed key is named with U+FFFD so the error body itself is well-formed.
        const path = joinPath(next.path, toWellFormedText(key));
        if (!isWellFormedText(key)) found.push(path);
        else pending.push({ value: child, path });
      }
    }
  }
  return found;
}

function malformedTextProblem(field: string): FieldProblem {
  return {
    field,
    code: 'invalid_unicode',
    message: `${field} is not well-formed Unicode (it contains a lone UTF-16 surrogate)`,
  };
}

/** Throws a 422 naming every string or key of `value` that is not well-formed Unicode. */
export function requireWellFormedText<T>(value: T, what: string, root = what, prefix = ''): T {
  const paths = malformedTextPaths(value, root).map((path) => (prefix && path !== root ? `${prefix}.${path}` : path));
  if (paths.length === 0) return value;
  const problems = paths.map(malformedTextProblem);
  throw new ValidationError(`Invalid ${what}: ${problems[0]!.message}`, problems);
}

/**
 * JSON text carried in a field (`response_json`, form options): parsed behind the depth bound
 * and the Unicode check, both 422s on `field`. Unparseable text is undefined for the caller to
 * report in its own words.
 */
export function parseJsonText(text: string, field: string): { value: unknown } | undefined {
  if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw ValidationError.field(
      field,
      'too_deep',
      `${field} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return { value: requireWellFormedText(value, field, field, field) };
}
