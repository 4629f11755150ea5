/**
 * A small OpenSearch in memory for the search contract (test/unit/search-contract.test.ts): it
 * answers the requests the adapter (shared/search/opensearch-adapter.ts) makes the way OpenSearch
 * does, for the part of the API the adapter uses, and refuses anything else, so a query body
 * the adapter starts to build differently fails here before it reaches a cluster.
 * What it does not do (only a live cluster proves these, decision 292): language analysis
 * (tokens are lower-cased, accent-folded words; no stemming), BM25 (a match scores its field's
 * boost per occurrence), refresh delays, signing and permissions.
 */
import type { IndexGeneration, IndexGenerations, OpenSearchApi } from '../../shared/search/opensearch-adapter.ts';

type Json = Record<string, any>;

interface StoredIndex {
  body: Json;
  documents: Map<string, { version: number; source: Json }>;
  /** Deleted ids and the version of their deletion (external versions keep them, as gc_deletes does). */
  deleted: Map<string, number>;
}

class ResponseError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: Json,
  ) {
    super(`${statusCode} ${JSON.stringify(body)}`);
  }
}

const tokens = (text: unknown): string[] =>
  String(text ?? '')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

function valueAt(source: Json, path: string): unknown {
  return path.split('.').reduce<any>((value, part) => (value == null ? undefined : value[part]), source);
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

function fieldBoosts(fields: string[]): Array<[string, number]> {
  return fields.map((field) => {
    const [name, boost] = field.split('^');
    return [name!, boost ? Number(boost) : 1];
  });
}

/** A field's score for the query's tokens: its boost per occurrence, or 0 when it does not match. */
function fieldScore(words: string[], query: string[], type: string): number {
  if (type === 'phrase_prefix') {
    for (let start = 0; start + query.length <= words.length; start++) {
      const whole = query.every((token, n) =>
        n === query.length - 1 ? words[start + n]!.startsWith(token) : words[start + n] === token,
      );
      if (whole) return 1;
    }
    return 0;
  }
  return query.reduce((sum, token) => sum + words.filter((word) => word === token).length, 0);
}

/** [matches, score] of a query clause on a document. */
function evaluate(clause: Json, source: Json): [boolean, number] {
  const [kind, ...others] = Object.keys(clause);
  if (others.length > 0) throw new ResponseError(400, { error: { type: 'parsing_exception', clause } });
  const spec = clause[kind!];
  switch (kind) {
    case 'bool': {
      const known = new Set(['must', 'filter', 'should', 'must_not', 'minimum_should_match']);
      for (const key of Object.keys(spec)) {
        if (!known.has(key)) throw new ResponseError(400, { error: { type: 'parsing_exception', key } });
      }
      let score = 0;
      for (const part of asList(spec.must)) {
        const [ok, s] = evaluate(part as Json, source);
        if (!ok) return [false, 0];
        score += s;
      }
      for (const part of asList(spec.filter)) if (!evaluate(part as Json, source)[0]) return [false, 0];
      for (const part of asList(spec.must_not)) if (evaluate(part as Json, source)[0]) return [false, 0];
      const should = asList(spec.should).map((part) => evaluate(part as Json, source));
      const needed = spec.minimum_should_match ?? (spec.must || spec.filter ? 0 : should.length > 0 ? 1 : 0);
      if (should.filter(([ok]) => ok).length < needed) return [false, 0];
      return [true, score + should.reduce((sum, [ok, s]) => sum + (ok ? s : 0), 0)];
    }
    case 'term': {
      const [[field, value]] = Object.entries(spec) as [[string, unknown]];
      return [asList(valueAt(source, field)).some((stored) => stored === value), 0];
    }
    case 'terms': {
      const [[field, values]] = Object.entries(spec) as [[string, unknown[]]];
      return [asList(valueAt(source, field)).some((stored) => values.includes(stored)), 0];
    }
    case 'multi_match': {
      const type = spec.type ?? 'best_fields';
      if (!['best_fields', 'phrase_prefix'].includes(type)) throw new ResponseError(400, { error: { type } });
      const query = tokens(spec.query);
      if (query.length === 0) return [false, 0];
      const best = Math.max(
        ...fieldBoosts(spec.fields).map(([field, boost]) => boost * fieldScore(tokens(source[field]), query, type)),
      );
      return [best > 0, best];
    }
    default:
      throw new ResponseError(400, { error: { type: 'parsing_exception', reason: `unknown query [${kind}]` } });
  }
}

export interface FakeOpenSearch extends OpenSearchApi {
  indexes: Map<string, StoredIndex>;
  /** Every search body asked, last last. */
  searches: Json[];
}

/** Checks a document against a strict mapping, as OpenSearch refuses a field it does not know. */
function checkStrict(properties: Json, source: Json, path = ''): void {
  for (const [name, value] of Object.entries(source)) {
    const mapped = properties[name];
    if (!mapped)
      throw new ResponseError(400, { error: { type: 'strict_dynamic_mapping_exception', field: path + name } });
    if (mapped.properties && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      checkStrict(mapped.properties, value as Json, `${path}${name}.`);
    }
  }
}

export function fakeOpenSearch(): FakeOpenSearch {
  const indexes = new Map<string, StoredIndex>();
  const searches: Json[] = [];
  const ok = (body: unknown) => Promise.resolve({ body });
  return {
    indexes,
    searches,
    indices: {
      exists: ({ index }) => ok(indexes.has(index)),
      async create({ index, body }) {
        if (indexes.has(index)) throw new ResponseError(400, { error: { type: 'resource_already_exists_exception' } });
        if (index !== index.toLowerCase()) throw new ResponseError(400, { error: { type: 'invalid_index_name' } });
        indexes.set(index, { body: body as Json, documents: new Map(), deleted: new Map() });
        return { body: { acknowledged: true, index } };
      },
      async delete({ index, ignore_unavailable }) {
        if (!indexes.has(index) && !ignore_unavailable)
          throw new ResponseError(404, { error: { type: 'index_not_found' } });
        indexes.delete(index);
        return { body: { acknowledged: true } };
      },
    },
    async bulk({ body }) {
      const items: Json[] = [];
      for (let n = 0; n < body.length; n++) {
        const line = body[n] as Json;
        const [action] = Object.keys(line) as ['index' | 'delete'];
        const { _index, _id, version, version_type } = line[action];
        if (version_type !== 'external' || !Number.isInteger(version)) throw new ResponseError(400, { line });
        const index = indexes.get(_index);
        const source = action === 'index' ? (body[++n] as Json) : undefined;
        if (!index) {
          items.push({ [action]: { _index, _id, status: 404, error: { type: 'index_not_found_exception' } } });
          continue;
        }
        const current = index.documents.get(_id)?.version ?? index.deleted.get(_id) ?? 0;
        if (version <= current) {
          items.push({ [action]: { _index, _id, status: 409, error: { type: 'version_conflict_engine_exception' } } });
          continue;
        }
        if (action === 'index') {
          try {
            checkStrict(index.body.mappings.properties, source!);
          } catch (error) {
            items.push({ index: { _index, _id, status: 400, error: (error as ResponseError).body.error } });
            continue;
          }
          index.documents.set(_id, { version, source: structuredClone(source!) });
          index.deleted.delete(_id);
          items.push({ index: { _index, _id, status: 201, result: 'created' } });
        } else {
          const existed = index.documents.delete(_id);
          index.deleted.set(_id, version);
          items.push({
            delete: { _index, _id, status: existed ? 200 : 404, result: existed ? 'deleted' : 'not_found' },
          });
        }
      }
      return { body: { took: 1, errors: items.some((item) => Object.values(item)[0].status >= 300), items } };
    },
    async search({ index, body, ignore_unavailable }) {
      const request = body as Json;
      searches.push(request);
      const stored = indexes.get(index);
      if (!stored) {
        if (ignore_unavailable) return ok({ took: 0, hits: { total: { value: 0, relation: 'eq' }, hits: [] } });
        throw new ResponseError(404, { error: { type: 'index_not_found_exception' } });
      }
      const window = stored.body.settings?.['index.max_result_window'] ?? 10_000;
      if (request.from + request.size > window) throw new ResponseError(400, { error: { type: 'illegal_argument' } });
      if (request.track_total_hits !== true) throw new ResponseError(400, { error: 'the adapter counts exactly' });
      const matches = [...stored.documents]
        .map(([id, { source }]) => ({ id, source, result: evaluate(request.query, source) }))
        .filter(({ result }) => result[0])
        .sort((a, b) => b.result[1] - a.result[1] || (a.source.key < b.source.key ? -1 : 1));
      const fields: string[] = request._source;
      return ok({
        took: 1,
        hits: {
          total: { value: matches.length, relation: 'eq' },
          hits: matches.slice(request.from, request.from + request.size).map(({ id, source, result }) => ({
            _index: index,
            _id: id,
            _score: result[1],
            _source: Object.fromEntries(
              fields.filter((field) => field in source).map((field) => [field, source[field]]),
            ),
          })),
        },
      });
    },
  };
}

/** The generation pointer (decision 329) in memory, moved on condition of its version as the table's item is. */
export function memoryGenerations(): IndexGenerations & {
  pointer: (IndexGeneration & { version: number }) | undefined;
} {
  const store = {
    pointer: undefined as (IndexGeneration & { version: number }) | undefined,
    read: async () => store.pointer && { ...store.pointer },
    async move(next: IndexGeneration, expectedVersion: number | undefined) {
      if (store.pointer?.version !== expectedVersion) throw new Error('ConditionalCheckFailedException');
      store.pointer = { ...next, version: (expectedVersion ?? 0) + 1 };
    },
  };
  return store;
}
