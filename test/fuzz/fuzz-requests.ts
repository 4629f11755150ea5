/**
 * Requests for the route fuzz test: a valid request built from a route's own schemas and example
 * (ids mapped onto the fuzz world), and hostile mutations of it. Everything here is plain data
 * and pure functions; the test sends the requests.
 */
import type { RouteDef } from '../../shared/http/route.ts';
import { UNKNOWN_ID, worldValue, type FuzzWorld } from './fuzz-fixtures.ts';

export interface FuzzRequest {
  method: string;
  params: Record<string, string>;
  /** Path segments sent as they are (already percent-encoded, possibly invalidly). */
  rawParams?: Record<string, string>;
  query: Record<string, string>;
  body?: unknown;
  /** Sent instead of JSON.stringify(body). */
  rawBody?: string | Buffer;
  contentType?: string;
}

let counter = 0;
const fresh = () => `${++counter}`;

/** Keys whose example values must be unique per request (titles, names, logins). */
const UNIQUE_TEXT = new Set(['title', 'name', 'username', 'tag', 'term']);

function singular(key: string): string {
  return key.endsWith('ids') ? key.slice(0, -1) : key;
}

function isIdKey(key: string): boolean {
  return /id$/i.test(key) || ['owner', 'add', 'remove'].includes(key);
}

/**
 * The example with every id mapped onto the fuzz world (unknown ids far above any counter),
 * unique names made unique and every login aimed at the fuzz world's login target.
 */
export function adoptExample(value: unknown, key: string, world: FuzzWorld, route: RouteDef): unknown {
  if (Array.isArray(value)) return value.map((item) => adoptExample(item, singular(key), world, route));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([name, child]) => [name, adoptExample(child, name, world, route)]),
    );
  }
  if (typeof value === 'number' && Number.isInteger(value) && isIdKey(key)) {
    const mapped = worldValue(world, key);
    return typeof mapped === 'number' ? mapped : UNKNOWN_ID;
  }
  if (typeof value !== 'string') return value;
  if (key === 'login' || (key === 'email' && /token|reset|sign/.test(route.path))) return world.loginTarget.email;
  if (key === 'email') return `fuzz.${world.suffix}.${fresh()}@example.com`;
  if (key === 'unique_username') return `fuzz_${world.suffix}_${fresh()}`;
  if (key === 'category') return world.category;
  if (UNIQUE_TEXT.has(key)) return `${value} fuzz ${world.suffix} ${fresh()}`;
  return value;
}

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  default?: unknown;
};

/**
 * A value for every field the body schema declares (optional ones too), from its JSON Schema:
 * mutations then reach fields the example leaves out (e.g. a guide's parts[].quantity).
 */
export function sampleFromSchema(schema: JsonSchema | undefined, depth = 0): unknown {
  if (!schema || depth > 8) return null;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const option = schema.anyOf ?? schema.oneOf;
  if (option) return sampleFromSchema(option.find((entry) => entry.type !== 'null') ?? option[0], depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((entry) => entry !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, child]) => [key, sampleFromSchema(child, depth + 1)]),
      );
    case 'array':
      return [sampleFromSchema(schema.items, depth + 1)];
    case 'integer':
    case 'number':
      return Math.max(1, schema.minimum ?? 1);
    case 'boolean':
      return true;
    case 'string':
      return 'sample';
    default:
      return null;
  }
}

/** The example over the schema sample: every declared field present, the example's values kept. */
export function mergeOver(sample: unknown, example: unknown): unknown {
  if (example === undefined) return sample;
  if (
    sample === null ||
    typeof sample !== 'object' ||
    Array.isArray(sample) ||
    example === null ||
    typeof example !== 'object' ||
    Array.isArray(example)
  )
    return example;
  const merged: Record<string, unknown> = { ...(sample as Record<string, unknown>) };
  for (const [key, value] of Object.entries(example)) merged[key] = mergeOver(merged[key], value);
  return merged;
}

/** Names of an object schema's keys (query and params schemas are z.object, possibly checked). */
export function schemaKeys(schema: unknown): string[] {
  const shape = (schema as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def?.shape;
  return shape ? Object.keys(shape) : [];
}

const QUERY_CANDIDATES = ['1', '20', 'ASC', 'guide', 'sample', 'true'];

/** A query the route's schema accepts: required keys filled by trying plain candidates. */
export function validQuery(route: RouteDef, world: FuzzWorld, known: Record<string, string>): Record<string, string> {
  const query: Record<string, string> = {};
  if (!route.query) return query;
  for (const key of schemaKeys(route.query)) {
    if (known[key] !== undefined) query[key] = known[key]!;
  }
  for (let round = 0; round < 4; round++) {
    const parsed = route.query.safeParse(query);
    if (parsed.success) return query;
    const missing = new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? '')));
    for (const key of missing) {
      const fromWorld = worldValue(world, key);
      const options = [...(fromWorld !== undefined ? [String(fromWorld)] : []), ...QUERY_CANDIDATES];
      query[key] = options.find((option) => route.query!.safeParse({ ...query, [key]: option }).success) ?? options[0]!;
    }
  }
  return query;
}

export function pathParamNames(route: RouteDef): string[] {
  return [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
}

export function validParams(route: RouteDef, world: FuzzWorld): Record<string, string> {
  return Object.fromEntries(
    pathParamNames(route).map((name) => [
      name,
      String(worldValue(world, name) ?? (/id$/i.test(name) ? UNKNOWN_ID : 'sample')),
    ]),
  );
}

export function concretePath(route: RouteDef, request: FuzzRequest): string {
  return route.path.replace(
    /\{([^}]+)\}/g,
    (_, name: string) => request.rawParams?.[name] ?? encodeURIComponent(request.params[name] ?? ''),
  );
}

// ---- mutations --------------------------------------------------------------------------

export const MUTATIONS = [
  'none',
  'lone-surrogate',
  'deep',
  'number',
  'query',
  'long-string',
  'wrong-type',
  'proto',
  'content-type',
  'drop',
  'path',
] as const;
export type Mutation = (typeof MUTATIONS)[number];

export interface Choice {
  mutation: Mutation;
  /** Odd: add one declared field the example leaves out (which one: `extra` modulo their number). */
  extra: number;
  /** Which leaf, key or variant: taken modulo the number of options. */
  pick: number;
  variant: number;
}

const HOSTILE_NUMBERS = [
  '1e300',
  '-1e300',
  '2147483648',
  '9007199254740993',
  '18446744073709551616',
  '-1',
  '-2147483649',
  '0',
  '1e-300',
  '0.5',
  '123456789012345678901234567890',
];
const HOSTILE_QUERY = [
  '2147483648',
  '99999999999999999999',
  '-1',
  '1e5',
  '0x10',
  '',
  'NaN',
  '100001',
  'a'.repeat(5000),
  '%ED%A0%80',
  'x\ud800',
];
const HOSTILE_PATH = [
  '%ED%A0%80',
  'x%F0',
  '-1',
  '0',
  '2147483648',
  '99999999999999999999',
  'a'.repeat(3000),
  '%00',
  '..',
  '%2F',
];
const LONG_LENGTHS = [256, 5_000, 120_000, 450_000];
const WRONG_VALUES: unknown[] = [null, true, {}, [], 'text', 42, [1, 2], { nested: { deeper: [] } }];
const ODD_TYPES = [
  'text/plain',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  'application/json; charset=latin1',
];
const ODD_BODIES = [
  'a=1&b=2',
  '<xml><a>1</a></xml>',
  '\u0000\u0001\u0002',
  '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--',
];

type Path = Array<string | number>;

/** Paths of the leaves (and of every container) of a JSON value, breadth first. */
function nodePaths(value: unknown): Array<{ path: Path; value: unknown }> {
  const nodes: Array<{ path: Path; value: unknown }> = [];
  const queue: Array<{ path: Path; value: unknown }> = [{ path: [], value }];
  while (queue.length > 0) {
    const node = queue.shift()!;
    nodes.push(node);
    if (node.value !== null && typeof node.value === 'object') {
      for (const [key, child] of Object.entries(node.value))
        queue.push({ path: [...node.path, Array.isArray(node.value) ? Number(key) : key], value: child });
    }
  }
  return nodes;
}

function setAt(root: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let target = copy;
  for (const key of path.slice(0, -1)) target = target[key] as Record<string | number, unknown>;
  target[path[path.length - 1]!] = replacement;
  return copy;
}

const PLACEHOLDER = '__fuzz_raw_value__';

/** The body as JSON text with the node at `path` replaced by raw JSON text. */
function withRawAt(body: unknown, path: Path, rawJson: string): string {
  return JSON.stringify(setAt(body ?? {}, path, PLACEHOLDER)).replace(JSON.stringify(PLACEHOLDER), rawJson);
}

function pickOf<T>(items: readonly T[], index: number): T {
  return items[index % items.length]!;
}

/**
 * The example body plus one more field the schema declares (so the rest stays valid), and the
 * name of that field, which the mutation then aims at.
 */
function withOneMoreField(
  body: unknown,
  fullBody: unknown,
  extra: number,
  leafType?: 'number' | 'string',
): { body: unknown; added?: string } {
  if (
    body === null ||
    typeof body !== 'object' ||
    Array.isArray(body) ||
    fullBody === null ||
    typeof fullBody !== 'object'
  )
    return { body };
  const holds = (key: string) =>
    !leafType || nodePaths((fullBody as Record<string, unknown>)[key]).some((entry) => typeof entry.value === leafType);
  const missing = Object.keys(fullBody).filter((key) => !(key in body) && holds(key));
  if (missing.length === 0) return { body };
  const added = missing[(extra >> 1) % missing.length]!;
  return { body: { ...body, [added]: (fullBody as Record<string, unknown>)[added] }, added };
}

/** Applies one hostile mutation to a valid request (after adding one declared field, for odd `extra`). */
export function mutate(base: FuzzRequest, choice: Choice, queryKeys: string[], fullBody?: unknown): FuzzRequest {
  const request: FuzzRequest = { ...base, params: { ...base.params }, query: { ...base.query } };
  let added: string | undefined;
  // Aim number and string mutations at a field that has such a leaf.
  const leafType =
    choice.mutation === 'number'
      ? 'number'
      : ['long-string', 'lone-surrogate'].includes(choice.mutation)
        ? 'string'
        : undefined;
  if (fullBody !== undefined && base.body !== undefined && choice.extra % 2 === 1)
    ({ body: request.body, added } = withOneMoreField(base.body, fullBody, choice.extra, leafType));
  const body = request.body ?? {};
  const allNodes = nodePaths(body);
  const nodes = added === undefined ? allNodes : allNodes.filter((entry) => entry.path[0] === added);
  const node = pickOf(nodes, choice.pick);
  const strings = nodes.filter((entry) => typeof entry.value === 'string');
  const numbers = nodes.filter((entry) => typeof entry.value === 'number');
  switch (choice.mutation) {
    case 'none':
      return request;
    case 'lone-surrogate': {
      const lone = pickOf(['\ud800', '\udfff', 'a\udbff', '\udc00z'], choice.variant);
      if (choice.variant % 3 === 2 || strings.length === 0) {
        request.body = {
          ...(typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}),
          [`key${lone}`]: 'value',
        };
      } else {
        const target = pickOf(strings, choice.pick);
        request.body = setAt(body, target.path, `${target.value as string}${lone}`);
      }
      return request;
    }
    case 'deep': {
      const depth = pickOf([65, 1_000, 10_000], choice.variant);
      const deep =
        choice.variant % 2 === 0
          ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
          : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      request.rawBody = withRawAt(body, node.path, deep);
      return request;
    }
    case 'number': {
      // Mostly a numeric leaf; now and then any node (a number where an object belongs).
      const target = numbers.length > 0 && choice.variant % 4 !== 0 ? pickOf(numbers, choice.pick) : node;
      request.rawBody = withRawAt(body, target.path, pickOf(HOSTILE_NUMBERS, choice.variant));
      return request;
    }
    case 'query': {
      const keys = [...queryKeys, 'offset', 'limit', 'page', 'pageSize'];
      request.query[pickOf(keys, choice.pick)] = pickOf(HOSTILE_QUERY, choice.variant);
      return request;
    }
    case 'long-string': {
      const long = 'a'.repeat(pickOf(LONG_LENGTHS, choice.variant));
      request.body = setAt(body, (strings.length > 0 ? pickOf(strings, choice.pick) : node).path, long);
      return request;
    }
    case 'wrong-type':
      request.body = setAt(body, node.path, pickOf(WRONG_VALUES, choice.variant));
      return request;
    case 'proto': {
      const hostile =
        '"__proto__":{"isAdmin":true,"privileges":["Admin"]},"constructor":{"prototype":{"polluted":true}}';
      const text = JSON.stringify(body);
      request.rawBody = text.startsWith('{') && text !== '{}' ? `{${hostile},${text.slice(1)}` : `{${hostile}}`;
      return request;
    }
    case 'content-type':
      request.contentType = pickOf(ODD_TYPES, choice.variant);
      if (choice.pick % 2 === 1) request.rawBody = pickOf(ODD_BODIES, choice.pick >> 1);
      return request;
    case 'drop': {
      if (node.path.length === 0) request.body = undefined;
      else {
        const copy = structuredClone(body) as Record<string | number, unknown>;
        let target = copy;
        for (const key of node.path.slice(0, -1)) target = target[key] as Record<string | number, unknown>;
        delete target[node.path[node.path.length - 1]!];
        request.body = copy;
      }
      return request;
    }
    case 'path': {
      const names = Object.keys(request.params);
      if (names.length === 0) {
        request.query[`x${choice.pick % 5}`] = pickOf(HOSTILE_QUERY, choice.variant);
        return request;
      }
      const value = pickOf(HOSTILE_PATH, choice.variant);
      request.rawParams = { [pickOf(names, choice.pick)]: value };
      return request;
    }
  }
}
