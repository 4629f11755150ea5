/**
 * SCIM 2.0 filters (RFC 7644 §3.4.2.2), the part identity providers send: attribute paths
 * (`userName`, `emails.value`, `name.givenName`), the operators eq ne co sw ew pr, `and`, `or`,
 * `not (...)` and parentheses; values are JSON strings, numbers, true, false, null. gt/ge/lt/le
 * and value paths (`emails[type eq "work"]`) are refused as invalidFilter. Pure: the SCIM
 * services evaluate the tree against a resource's attributes (docs/identity.md).
 */

export type ScimComparison = 'eq' | 'ne' | 'co' | 'sw' | 'ew';

export type ScimFilter =
  | { kind: 'compare'; path: string; op: ScimComparison; value: string | number | boolean | null }
  | { kind: 'present'; path: string }
  | { kind: 'and' | 'or'; left: ScimFilter; right: ScimFilter }
  | { kind: 'not'; filter: ScimFilter };

export class ScimFilterError extends Error {}

const TOKEN = /\s*(\(|\)|"(?:[^"\\]|\\.)*"|[^\s()"]+)/y;
const ATTR_PATH = /^(?:urn:[A-Za-z0-9:._-]+:)?[A-Za-z][A-Za-z0-9_-]*(?:\.[A-Za-z][A-Za-z0-9_-]*)?$/;
const COMPARISONS = new Set(['eq', 'ne', 'co', 'sw', 'ew']);
const UNSUPPORTED = new Set(['gt', 'ge', 'lt', 'le']);
const MAX_FILTER_LENGTH = 1000;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const match = TOKEN.exec(text);
    if (!match) throw new ScimFilterError(`Cannot read the filter at ${TOKEN.lastIndex}`);
    tokens.push(match[1]);
  }
  return tokens;
}

function parseValue(token: string | undefined): string | number | boolean | null {
  if (token === undefined) throw new ScimFilterError('A comparison needs a value');
  if (token.startsWith('"')) {
    try {
      return JSON.parse(token) as string;
    } catch {
      throw new ScimFilterError(`Not a valid string: ${token}`);
    }
  }
  if (token === 'true') return true;
  if (token === 'false') return false;
  if (token === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(token)) return Number(token);
  throw new ScimFilterError(`Not a value: ${token}`);
}

/** The filter's tree; ScimFilterError (→ 400 invalidFilter) for anything it cannot read. */
export function parseScimFilter(text: string): ScimFilter {
  if (text.length > MAX_FILTER_LENGTH) throw new ScimFilterError('The filter is too long');
  const tokens = tokenize(text);
  let at = 0;
  const peek = () => tokens[at]?.toLowerCase();
  const next = () => tokens[at++];

  function expression(depth: number): ScimFilter {
    let left = conjunction(depth);
    while (peek() === 'or') {
      next();
      left = { kind: 'or', left, right: conjunction(depth) };
    }
    return left;
  }
  function conjunction(depth: number): ScimFilter {
    let left = atom(depth);
    while (peek() === 'and') {
      next();
      left = { kind: 'and', left, right: atom(depth) };
    }
    return left;
  }
  function group(depth: number): ScimFilter {
    if (depth > 20) throw new ScimFilterError('The filter nests too deep');
    if (next() !== '(') throw new ScimFilterError('Expected (');
    const inner = expression(depth + 1);
    if (next() !== ')') throw new ScimFilterError('Expected )');
    return inner;
  }
  function atom(depth: number): ScimFilter {
    const token = tokens[at];
    if (token === undefined) throw new ScimFilterError('The filter ends too early');
    if (token === '(') return group(depth);
    if (token.toLowerCase() === 'not') {
      next();
      return { kind: 'not', filter: group(depth) };
    }
    const path = next();
    if (!ATTR_PATH.test(path)) throw new ScimFilterError(`Not an attribute path: ${path}`);
    const op = next()?.toLowerCase();
    if (op === 'pr') return { kind: 'present', path };
    if (op && UNSUPPORTED.has(op)) throw new ScimFilterError(`The operator ${op} is not supported`);
    if (!op || !COMPARISONS.has(op)) throw new ScimFilterError(`Not an operator: ${op ?? '(end)'}`);
    return { kind: 'compare', path, op: op as ScimComparison, value: parseValue(next()) };
  }

  const filter = expression(0);
  if (at < tokens.length) throw new ScimFilterError(`Unexpected ${tokens[at]}`);
  return filter;
}

/** An attribute's values: several for multi-valued ones (emails), none when absent. */
export type ScimAttributeValues = (path: string) => Array<string | number | boolean>;

/** Attributes compared case-sensitively (RFC 7643 caseExact); all others ignore case. */
const CASE_EXACT = new Set(['id', 'externalid']);

function bareName(path: string): string {
  return path.replace(/^urn:[A-Za-z0-9:._-]+:/, '').toLowerCase();
}

function compareOne(op: ScimComparison, actual: string | number | boolean, wanted: unknown, exact: boolean): boolean {
  if (typeof actual !== 'string' || typeof wanted !== 'string') {
    const same = actual === wanted;
    return op === 'eq' ? same : op === 'ne' ? !same : false;
  }
  const a = exact ? actual : actual.toLowerCase();
  const w = exact ? wanted : wanted.toLowerCase();
  if (op === 'eq') return a === w;
  if (op === 'ne') return a !== w;
  if (op === 'co') return a.includes(w);
  if (op === 'sw') return a.startsWith(w);
  return a.endsWith(w);
}

/** Whether a resource (its attribute values by lower-case path) matches the filter. */
export function matchesScimFilter(filter: ScimFilter, values: ScimAttributeValues): boolean {
  switch (filter.kind) {
    case 'and':
      return matchesScimFilter(filter.left, values) && matchesScimFilter(filter.right, values);
    case 'or':
      return matchesScimFilter(filter.left, values) || matchesScimFilter(filter.right, values);
    case 'not':
      return !matchesScimFilter(filter.filter, values);
    case 'present':
      return values(bareName(filter.path)).length > 0;
    case 'compare': {
      const path = bareName(filter.path);
      const found = values(path);
      if (filter.op === 'ne')
        return found.every((value) => compareOne('ne', value, filter.value, CASE_EXACT.has(path)));
      return found.some((value) => compareOne(filter.op, value, filter.value, CASE_EXACT.has(path)));
    }
  }
}

/** The value of a top-level `<path> eq "..."` filter, for a lookup by a unique attribute. */
export function equalityOn(filter: ScimFilter, path: string): string | undefined {
  return filter.kind === 'compare' &&
    filter.op === 'eq' &&
    bareName(filter.path) === path.toLowerCase() &&
    typeof filter.value === 'string'
    ? filter.value
    : undefined;
}
