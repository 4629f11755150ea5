/**
 * SCIM resources as documents (RFC 7644 §3.5.2, §3.9, §3.4.2.2): PATCH operations applied to a
 * resource by its declared schemas (value filters such as `emails[type eq "work"].value`,
 * sub-attributes such as `name.familyName`, extension URNs, `remove`), the values a write keeps
 * (checked by type, bounded in size, Entra's "True"/"False" read as booleans),
 * `attributes`/`excludedAttributes` projections, and the attribute values filters compare.
 * Pure: the Users and Groups services map documents to records (decision 284).
 */
import {
  matchesScimFilter,
  parseScimFilter,
  type ScimAttributeValues,
  type ScimFilter,
  ScimFilterError,
} from '../../shared/domain/scim-filter.ts';
import { booleanValue, type PatchOperation, ScimError } from './scim-protocol.ts';
import { type AttributeDef, findAttribute, type ResourceSchemas, type SchemaDef } from './scim-schema.ts';

export type ScimDocument = Record<string, unknown>;

/** The most values one multi-valued attribute keeps, and the longest text of one value. */
const MAX_VALUES = 50;
const MAX_TEXT = 2048;

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalidPath(path: string): ScimError {
  return new ScimError(400, `The path ${path} names no attribute this service provider keeps`, 'invalidPath');
}

/** Where a PATCH path points: an attribute (of the core schema or an extension), a filter, a sub-attribute. */
interface Target {
  path: string;
  extension?: SchemaDef;
  /** Absent: the whole extension object. */
  attribute?: AttributeDef;
  filter?: ScimFilter;
  sub?: AttributeDef;
}

const ATTRIBUTE_PATH = /^([A-Za-z$][\w$-]*)(?:\[(.+)\])?(?:\.([A-Za-z$][\w$-]*))?$/s;

/** A PATCH path (RFC 7644 §3.5.2 `PATH`) resolved against the resource's schemas; invalidPath otherwise. */
export function resolvePath(path: string, schemas: ResourceSchemas): Target {
  const trimmed = path.trim();
  const lower = trimmed.toLowerCase();
  let schema = schemas.core;
  let extension: SchemaDef | undefined;
  let rest = trimmed;
  if (lower.startsWith('urn:')) {
    const found = [schemas.core, ...schemas.extensions].find(
      (candidate) => lower === candidate.id.toLowerCase() || lower.startsWith(`${candidate.id.toLowerCase()}:`),
    );
    if (!found) throw invalidPath(path);
    schema = found;
    if (found !== schemas.core) extension = found;
    if (lower === found.id.toLowerCase()) {
      if (!extension) throw invalidPath(path);
      return { path, extension };
    }
    rest = trimmed.slice(found.id.length + 1);
  }
  const match = ATTRIBUTE_PATH.exec(rest);
  const attribute = match ? findAttribute(schema.attributes, match[1]) : undefined;
  if (!match || !attribute) throw invalidPath(path);
  let filter: ScimFilter | undefined;
  if (match[2] !== undefined) {
    if (!attribute.multiValued) throw invalidPath(path);
    try {
      filter = parseScimFilter(match[2]);
    } catch (error) {
      if (error instanceof ScimFilterError) throw new ScimError(400, `${path}: ${error.message}`, 'invalidFilter');
      throw error;
    }
  }
  let sub: AttributeDef | undefined;
  if (match[3] !== undefined) {
    sub = findAttribute(attribute.subAttributes, match[3]);
    if (!sub) throw invalidPath(path);
  }
  return { path, extension, attribute, filter, sub };
}

/** The resource after its PatchOp operations, in order (not yet checked: see normalizeDocument). */
export function applyPatch(doc: ScimDocument, operations: PatchOperation[], schemas: ResourceSchemas): ScimDocument {
  const next = structuredClone(doc);
  for (const operation of operations) {
    if (operation.path === undefined || operation.path.trim() === '') applyWithoutPath(next, operation, schemas);
    else applyAt(next, resolvePath(operation.path, schemas), operation.op, operation.value, schemas);
  }
  return next;
}

/** Attributes a client echoes back that no write changes. */
const ECHOED = new Set(['id', 'meta', 'schemas']);

/** `{"op": "replace", "value": {...}}`: each member of the value is an attribute path (or an extension object). */
function applyWithoutPath(doc: ScimDocument, operation: PatchOperation, schemas: ResourceSchemas): void {
  if (!isObject(operation.value))
    throw new ScimError(400, 'A PATCH without a path carries an object of attributes', 'invalidValue');
  for (const [key, value] of Object.entries(operation.value)) {
    if (ECHOED.has(key.toLowerCase())) continue;
    const target = resolvePath(key, schemas);
    // A read-only attribute sent back as it was read (groups) is not a change.
    if (target.attribute?.mutability === 'readOnly' && !target.sub) continue;
    applyAt(doc, target, operation.op, value, schemas);
  }
}

function containerOf(doc: ScimDocument, target: Target, create: boolean): Record<string, unknown> | undefined {
  if (!target.extension) return doc;
  const existing = doc[target.extension.id];
  if (isObject(existing)) return existing;
  if (!create) return undefined;
  const made: Record<string, unknown> = {};
  doc[target.extension.id] = made;
  return made;
}

function applyAt(
  doc: ScimDocument,
  target: Target,
  op: PatchOperation['op'],
  value: unknown,
  schemas: ResourceSchemas,
) {
  const { attribute, sub } = target;
  if (attribute?.mutability === 'readOnly' || sub?.mutability === 'readOnly')
    throw new ScimError(400, `${target.path} is read-only`, 'mutability');
  if (!attribute) {
    const extension = target.extension!;
    if (op === 'remove') {
      delete doc[extension.id];
      return;
    }
    if (!isObject(value)) throw new ScimError(400, `${target.path} takes an object`, 'invalidValue');
    for (const [key, inner] of Object.entries(value))
      applyAt(doc, resolvePath(`${extension.id}:${key}`, schemas), op, inner, schemas);
    return;
  }
  const container = containerOf(doc, target, op !== 'remove');
  if (!container) return;
  if (attribute.multiValued) {
    applyMultiValued(container, target, attribute, op, value);
    return;
  }
  const name = attribute.name;
  const current = container[name];
  if (sub) {
    const object = isObject(current) ? current : undefined;
    if (op === 'remove') {
      if (object) {
        delete object[sub.name];
        if (Object.keys(object).length === 0) delete container[name];
      }
      return;
    }
    container[name] = { ...object, [sub.name]: value };
    return;
  }
  if (op === 'remove') delete container[name];
  // Sub-attributes a value leaves out are kept (RFC 7644 §3.5.2.1, §3.5.2.3).
  else if (attribute.type === 'complex' && isObject(value) && isObject(current))
    container[name] = { ...current, ...value };
  else container[name] = value;
}

function dataProperty(value: unknown): PropertyDescriptor {
  return { value, writable: true, enumerable: true, configurable: true };
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
}

/** The sub-attribute values of one value of a multi-valued attribute, as a filter compares them. */
function elementValues(element: Record<string, unknown>): ScimAttributeValues {
  return (path) => {
    const key = Object.keys(element).find((candidate) => candidate.toLowerCase() === path);
    const found = key === undefined ? undefined : element[key];
    return typeof found === 'string' || typeof found === 'number' || typeof found === 'boolean' ? [found] : [];
  };
}

/** The sub-attributes a filter of `eq` comparisons pins (`type eq "work"`), to make the value it names. */
function seedOf(filter: ScimFilter, attribute: AttributeDef): Record<string, unknown> | undefined {
  if (filter.kind === 'compare' && filter.op === 'eq' && filter.value !== null) {
    const sub = findAttribute(attribute.subAttributes, filter.path);
    return sub ? { [sub.name]: filter.value } : undefined;
  }
  if (filter.kind === 'and') {
    const left = seedOf(filter.left, attribute);
    const right = seedOf(filter.right, attribute);
    return left && right ? { ...left, ...right } : undefined;
  }
  return undefined;
}

function applyMultiValued(
  container: Record<string, unknown>,
  target: Target,
  attribute: AttributeDef,
  op: PatchOperation['op'],
  value: unknown,
): void {
  const name = attribute.name;
  const list = listOf(container[name]).filter(isObject);
  const store = (values: Record<string, unknown>[]) => {
    if (values.length === 0) delete container[name];
    else container[name] = values;
  };
  const sub = target.sub?.name;
  if (!target.filter) {
    if (sub) {
      if (op === 'remove') for (const element of list) delete element[sub];
      else {
        if (list.length === 0) list.push({});
        for (const element of list) element[sub] = value;
      }
      store(list.filter((element) => Object.keys(element).length > 0));
      return;
    }
    if (op === 'remove') {
      // Entra ID removes members by listing them in the value.
      if (value !== undefined) {
        const gone = new Set(listOf(value).map((item) => String(isObject(item) ? item.value : item)));
        store(list.filter((element) => !gone.has(String(element.value))));
      } else delete container[name];
      return;
    }
    const given = listOf(value);
    if (!given.every(isObject)) throw new ScimError(400, `The values of ${name} are objects`, 'invalidValue');
    if (op === 'replace') {
      store(given);
      return;
    }
    // add: a value already there (same value and type) is updated, a new one joins.
    const merged = [...list];
    for (const item of given) {
      const same = merged.findIndex(
        (element) =>
          item.value !== undefined && element.value === item.value && (element.type ?? null) === (item.type ?? null),
      );
      if (same >= 0) merged[same] = { ...merged[same], ...item };
      else merged.push(item);
    }
    store(merged);
    return;
  }
  const filter = target.filter;
  const matches = (element: Record<string, unknown>) => matchesScimFilter(filter, elementValues(element));
  if (op === 'remove') {
    if (sub) {
      for (const element of list.filter(matches)) delete element[sub];
      store(list.filter((element) => Object.keys(element).length > 0));
    } else store(list.filter((element) => !matches(element)));
    return;
  }
  if (!sub && !isObject(value)) throw new ScimError(400, `${target.path} takes an object`, 'invalidValue');
  const hits = list.filter(matches);
  if (hits.length === 0) {
    // Entra ID sets `emails[type eq "work"].value` on a user without one: the filter names the new value.
    const seed = seedOf(filter, attribute);
    if (!seed) throw new ScimError(400, `No value of ${name} matches ${target.path}`, 'noTarget');
    list.push(sub ? { ...seed, [sub]: value } : { ...seed, ...(value as Record<string, unknown>) });
  } else
    for (const element of hits) {
      if (sub) element[sub] = value;
      // Own data properties only (a `__proto__` member of the value stays a member, as in a spread).
      else
        for (const [key, given] of Object.entries(value as object))
          Object.defineProperty(element, key, dataProperty(given));
    }
  store(list);
}

/**
 * The document a write keeps: attributes of the declared schemas only (others, and read-only
 * ones, are left out), each value checked by its declared type; at most one primary per
 * multi-valued attribute (the last one marked). Throws 400 invalidValue for a wrong type.
 */
export function normalizeDocument(doc: ScimDocument, schemas: ResourceSchemas): ScimDocument {
  const out: ScimDocument = {};
  for (const [key, value] of Object.entries(doc)) {
    const extension = schemas.extensions.find((candidate) => candidate.id.toLowerCase() === key.toLowerCase());
    if (extension) {
      if (value === undefined || value === null) continue;
      if (!isObject(value)) throw new ScimError(400, `${key} is an object`, 'invalidValue');
      const inner: ScimDocument = {};
      for (const [innerKey, innerValue] of Object.entries(value)) {
        const attribute = findAttribute(extension.attributes, innerKey);
        if (!attribute || attribute.mutability === 'readOnly') continue;
        const kept = normalizeValue(innerValue, attribute, `${extension.id}:${attribute.name}`);
        if (kept !== undefined) inner[attribute.name] = kept;
      }
      if (Object.keys(inner).length > 0) out[extension.id] = inner;
      continue;
    }
    const attribute = findAttribute(schemas.core.attributes, key);
    if (!attribute || attribute.mutability === 'readOnly') continue;
    const kept = normalizeValue(value, attribute, attribute.name);
    if (kept !== undefined) out[attribute.name] = kept;
  }
  return out;
}

function normalizeValue(value: unknown, attribute: AttributeDef, path: string): unknown {
  if (!attribute.multiValued) return normalizeSingle(value, attribute, path);
  const list = listOf(value);
  if (list.length > MAX_VALUES) throw new ScimError(400, `${path} holds at most ${MAX_VALUES} values`, 'invalidValue');
  const kept = list
    .map((item) => normalizeSingle(item, attribute, path))
    .filter((item): item is Record<string, unknown> => item !== undefined);
  const lastPrimary = kept.findLastIndex((item) => isObject(item) && item.primary === true);
  for (const [index, item] of kept.entries())
    if (isObject(item) && item.primary === true && index !== lastPrimary) item.primary = false;
  return kept.length > 0 ? kept : undefined;
}

function normalizeSingle(value: unknown, attribute: AttributeDef, path: string): unknown {
  if (value === undefined || value === null) return undefined;
  if (attribute.type === 'complex') {
    if (!isObject(value)) throw new ScimError(400, `${path} is an object`, 'invalidValue');
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      const sub = findAttribute(attribute.subAttributes, key);
      if (!sub) continue;
      const kept = normalizeSingle(inner, sub, `${path}.${sub.name}`);
      if (kept !== undefined) out[sub.name] = kept;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  if (attribute.type === 'boolean') return booleanValue(value, path);
  if (attribute.type === 'integer') {
    if (typeof value !== 'number' || !Number.isInteger(value))
      throw new ScimError(400, `${path} is an integer`, 'invalidValue');
    return value;
  }
  if (typeof value !== 'string') throw new ScimError(400, `${path} is a string`, 'invalidValue');
  if (value.length > MAX_TEXT) throw new ScimError(400, `${path} is at most ${MAX_TEXT} characters`, 'invalidValue');
  return value.trim() === '' ? undefined : value;
}

/** A comma-separated attribute list of a query (`attributes=userName,name.givenName`). */
export function attributeList(text: string | string[] | undefined): string[] | undefined {
  const items = (Array.isArray(text) ? text : (text ?? '').split(','))
    .map((item) => String(item).trim())
    .filter(Boolean);
  return items.length > 0 ? items : undefined;
}

/** A projection path as [extension key or undefined, attribute, sub-attribute?], core URN dropped. */
function projectionPath(path: string, schemas: ResourceSchemas): [string | undefined, string, string?] | undefined {
  const lower = path.toLowerCase();
  let rest = path;
  let extension: string | undefined;
  const core = schemas.core.id.toLowerCase();
  if (lower.startsWith('urn:')) {
    const found = schemas.extensions.find(
      (candidate) => lower === candidate.id.toLowerCase() || lower.startsWith(`${candidate.id.toLowerCase()}:`),
    );
    if (found) {
      extension = found.id;
      if (lower === found.id.toLowerCase()) return [undefined, found.id];
      rest = path.slice(found.id.length + 1);
    } else if (lower.startsWith(`${core}:`)) rest = path.slice(core.length + 1);
    else return undefined;
  }
  const [attribute, sub] = rest.split('.', 2);
  return [extension, attribute, sub];
}

function keyIn(object: Record<string, unknown>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return Object.keys(object).find((key) => key.toLowerCase() === wanted);
}

/**
 * RFC 7644 §3.9: `attributes` keeps only the attributes named (and id, schemas, meta),
 * `excludedAttributes` drops the ones named (never id or schemas).
 */
export function projectResource(
  resource: ScimDocument,
  schemas: ResourceSchemas,
  attributes?: string[],
  excluded?: string[],
): ScimDocument {
  if (attributes?.length) {
    const out: ScimDocument = { schemas: resource.schemas, id: resource.id };
    for (const path of attributes) {
      const parts = projectionPath(path, schemas);
      if (!parts) continue;
      const [extension, name, sub] = parts;
      const source = extension ? resource[extension] : resource;
      if (!isObject(source)) continue;
      const key = keyIn(source, name);
      if (key === undefined) continue;
      if (extension && !isObject(out[extension])) out[extension] = {};
      const target = extension ? (out[extension] as ScimDocument) : out;
      const value = source[key];
      if (sub === undefined) target[key] = value;
      else if (Array.isArray(value)) {
        const picked = value.filter(isObject).map((item) => {
          const subKey = keyIn(item, sub);
          return subKey === undefined ? {} : { [subKey]: item[subKey] };
        });
        target[key] = picked;
      } else if (isObject(value)) {
        const subKey = keyIn(value, sub);
        if (subKey !== undefined)
          target[key] = { ...(target[key] as ScimDocument | undefined), [subKey]: value[subKey] };
      }
    }
    if (resource.meta !== undefined) out.meta = resource.meta;
    return out;
  }
  if (!excluded?.length) return resource;
  const out = structuredClone(resource);
  for (const path of excluded) {
    const parts = projectionPath(path, schemas);
    if (!parts) continue;
    const [extension, name, sub] = parts;
    const source = extension ? out[extension] : out;
    if (!isObject(source)) continue;
    const key = keyIn(source, name);
    if (key === undefined || (!extension && (key === 'id' || key === 'schemas'))) continue;
    if (sub === undefined) delete source[key];
    else
      for (const item of listOf(source[key]).filter(isObject)) {
        const subKey = keyIn(item, sub);
        if (subKey !== undefined) delete item[subKey];
      }
  }
  return out;
}

/** A resource's values by lower-case path (`emails.value`, `name.givenname`, `employeenumber`), for filters. */
export function resourceValues(resource: ScimDocument): ScimAttributeValues {
  return (path) => {
    const [first, ...rest] = path.split('.');
    const top: unknown[] = [];
    const at = (object: Record<string, unknown>, part: string) => {
      const key = Object.keys(object).find((candidate) => candidate.toLowerCase() === part);
      return key === undefined ? [] : listOf(object[key]);
    };
    top.push(...at(resource, first));
    // An extension's attribute is matched by its bare name (the filter's URN is dropped).
    if (top.length === 0)
      for (const [key, value] of Object.entries(resource))
        if (key.startsWith('urn:') && isObject(value)) top.push(...at(value, first));
    let current = top;
    for (const part of rest) current = current.flatMap((value) => (isObject(value) ? at(value, part) : []));
    return current
      .map((value) => (isObject(value) ? value.value : value))
      .filter(
        (value): value is string | number | boolean =>
          typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean',
      );
  };
}
