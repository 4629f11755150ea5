/**
 * The stored form of a search shard (decision 343): MiniSearch's own index, written so that a cold
 * search container rebuilds it with little work. MiniSearch's JSON (`toJSON`/`loadJS`) holds every
 * posting as a key of a plain object ({"<docId>": freq}): the JSON parser makes an object per term
 * and field, `loadJS` reads its keys back as numbers into a Map, and the garbage collector clears
 * the objects after; at 10,000 guides that was ~1 s of CPU for one language's 16 shards, most of
 * it not MiniSearch's index itself. Here the postings are one array of 32-bit numbers, read in
 * place, and go straight into the Maps MiniSearch searches; only the small parts (documents, their
 * field lengths and stored fields, the vocabulary) are JSON.
 *
 * Layout (before gzip): a uint32 (little-endian) header length; the header, UTF-8 JSON; zero
 * padding to a multiple of 4; then per term of the header's `terms`, in order: its field count,
 * and per field: the field id, the posting count n, n document ids, n term frequencies.
 * Everything read back is checked (the header by its schema, every count against what is left),
 * so a damaged object fails to load instead of loading half.
 */
import MiniSearch, { type Options } from 'minisearch';
import * as z from 'zod/mini';
import type { SearchDocument } from './search-port.ts';

/** A term's postings per field: field id -> (internal document id -> term frequency). */
type FieldTermData = Map<number, Map<number, number>>;

/** The parts of a MiniSearch instance that make its index (protected in its types; the version is pinned). */
interface Stored {
  _documentCount: number;
  _nextId: number;
  _fieldIds: Record<string, number>;
  _avgFieldLength: number[];
  _dirtCount: number;
  _documentIds: Map<number, string>;
  _fieldLength: Map<number, number[]>;
  _storedFields: Map<number, unknown>;
  _index: { set(term: string, data: FieldTermData): unknown } & Iterable<[string, FieldTermData]>;
}

const count = z.int().check(z.nonnegative());

const headerSchema = z.strictObject({
  format: z.string(),
  documentCount: count,
  nextId: count,
  fieldIds: z.record(z.string(), count),
  averageFieldLength: z.array(z.number()),
  dirtCount: count,
  documentIds: z.record(z.string(), z.string()),
  fieldLength: z.record(z.string(), z.array(count)),
  storedFields: z.record(z.string(), z.record(z.string(), z.unknown())),
  terms: z.array(z.string()),
});

/** The bytes are not a shard of this format (another layout or engine version): the index is rebuilt. */
export class IndexFormatError extends Error {
  constructor(found: unknown, expected: string) {
    super(`The stored search index is of format ${String(found)}, not ${expected}`);
    this.name = 'IndexFormatError';
  }
}

/** The bytes claim this format but do not hold a whole shard (damaged or cut). */
export class ShardFormatError extends Error {
  constructor(message: string) {
    super(`The stored search shard cannot be read: ${message}`);
    this.name = 'ShardFormatError';
  }
}

/**
 * The shard as bytes (not yet compressed), stamped with `format`. Postings of documents already
 * discarded (MiniSearch leaves them until a vacuum) are left out, so the stored shard has no dirt.
 */
export function encodeShard(search: MiniSearch<SearchDocument>, format: string): Buffer {
  const index = search as unknown as Stored;
  const live = index._documentIds;
  const terms: string[] = [];
  const numbers: number[] = [];
  for (const [term, data] of index._index) {
    const termAt = numbers.length;
    numbers.push(0);
    for (const [fieldId, postings] of data) {
      const docIds: number[] = [];
      const frequencies: number[] = [];
      for (const [docId, frequency] of postings) {
        if (!live.has(docId)) continue;
        docIds.push(docId);
        frequencies.push(frequency);
      }
      if (docIds.length === 0) continue;
      numbers[termAt]!++;
      numbers.push(fieldId, docIds.length);
      for (const docId of docIds) numbers.push(docId);
      for (const frequency of frequencies) numbers.push(frequency);
    }
    if (numbers[termAt] === 0) numbers.length = termAt;
    else terms.push(term);
  }
  const header = Buffer.from(
    JSON.stringify({
      format,
      documentCount: index._documentCount,
      nextId: index._nextId,
      fieldIds: index._fieldIds,
      averageFieldLength: index._avgFieldLength,
      dirtCount: 0,
      documentIds: Object.fromEntries(index._documentIds),
      fieldLength: Object.fromEntries(index._fieldLength),
      storedFields: Object.fromEntries(index._storedFields),
      terms,
    }),
    'utf8',
  );
  const start = alignedStart(header.length);
  const bytes = Buffer.alloc(start + 4 * numbers.length);
  bytes.writeUInt32LE(header.length, 0);
  header.copy(bytes, 4);
  new Uint32Array(bytes.buffer, bytes.byteOffset + start, numbers.length).set(numbers);
  return bytes;
}

/** Where the postings start: after the length and the header, at a multiple of 4. */
const alignedStart = (headerLength: number) => Math.ceil((4 + headerLength) / 4) * 4;

/** The header (unchecked) and where the postings start; undefined when the bytes are not of this layout. */
function headerOf(bytes: Buffer): { value: unknown; start: number } | undefined {
  if (bytes.length < 4) return undefined;
  const length = bytes.readUInt32LE(0);
  if (4 + length > bytes.length) return undefined;
  try {
    return { value: JSON.parse(bytes.toString('utf8', 4, 4 + length)), start: alignedStart(length) };
  } catch {
    return undefined;
  }
}

/**
 * Rebuilds the index, a step at a time: the generator yields after the header and after every
 * TERMS_A_STEP terms, so a caller may let its event loop turn between steps (`loadAsync`).
 * Throws IndexFormatError when the bytes are not a shard of `format`, ShardFormatError when they are cut.
 */
export function* decodeShard(
  bytes: Buffer,
  format: string,
  options: Options<SearchDocument>,
): Generator<void, MiniSearch<SearchDocument>> {
  const read = headerOf(bytes);
  const found = (read?.value as { format?: unknown } | null | undefined)?.format;
  if (!read || found !== format) throw new IndexFormatError(found, format);
  const parsed = headerSchema.safeParse(read.value);
  if (!parsed.success) throw new ShardFormatError('its header is not a shard header');
  const { data: header } = parsed;
  const { start } = read;
  if (start > bytes.length || (bytes.length - start) % 4 !== 0) throw new ShardFormatError('its postings are cut');
  // A typed array needs its offset aligned: gunzip's buffer usually is; a copy when not.
  const aligned = (bytes.byteOffset + start) % 4 === 0 ? bytes : Buffer.from(bytes);
  const numbers = new Uint32Array(aligned.buffer, aligned.byteOffset + start, (aligned.length - start) / 4);
  const fields = Object.keys(header.fieldIds).length;
  if (Object.keys(options.fields).length !== fields) throw new ShardFormatError('its fields are not the index options');
  const search = MiniSearch.loadJS<SearchDocument>(
    {
      documentCount: header.documentCount,
      nextId: header.nextId,
      documentIds: header.documentIds,
      fieldIds: header.fieldIds,
      fieldLength: header.fieldLength,
      averageFieldLength: header.averageFieldLength,
      storedFields: header.storedFields,
      dirtCount: header.dirtCount,
      index: [],
      serializationVersion: 2,
    } as never,
    options,
  );
  yield;
  const index = (search as unknown as Stored)._index;
  const end = numbers.length;
  let at = 0;
  let termsThisStep = 0;
  for (const term of header.terms) {
    if (at >= end) throw new ShardFormatError('its postings end before its terms');
    const fieldCount = numbers[at++]!;
    if (fieldCount > fields) throw new ShardFormatError(`the term ${JSON.stringify(term)} has too many fields`);
    const data: FieldTermData = new Map();
    for (let f = 0; f < fieldCount; f++) {
      if (at + 2 > end) throw new ShardFormatError('its postings end inside a term');
      const fieldId = numbers[at++]!;
      const size = numbers[at++]!;
      if (fieldId >= fields || at + 2 * size > end) throw new ShardFormatError('a posting list is out of bounds');
      const postings = new Map<number, number>();
      for (let n = 0; n < size; n++) postings.set(numbers[at + n]!, numbers[at + size + n]!);
      at += 2 * size;
      data.set(fieldId, postings);
    }
    index.set(term, data);
    if (++termsThisStep === TERMS_A_STEP) {
      termsThisStep = 0;
      yield;
    }
  }
  if (at !== end) throw new ShardFormatError('it holds more postings than terms');
  return search;
}

/** Terms rebuilt between two turns of the event loop (~10 ms of CPU at the bench's 500-document shards). */
const TERMS_A_STEP = 2000;

/** Runs `decodeShard` to its end in one go. */
export function decodeShardNow(bytes: Buffer, format: string, options: Options<SearchDocument>) {
  const steps = decodeShard(bytes, format, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
