/**
 * The migration's output: a site file (shared/site-archive/records.ts) written append-only
 * through one queue, so every operation (a batch of items, a whole object with its chunks, a
 * checkpoint) lands whole and in order, and the file's length between two operations is always
 * a record boundary a resume can cut back to.
 *
 * Items and objects are written once per key: a unit redone after a resume (or an item two
 * crawlers both produce) adds nothing the file already holds.
 */
import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import { marshall } from '@aws-sdk/util-dynamodb';
import {
  OBJECT_CHUNK_BYTES,
  entityOf,
  siteRecordSchema,
  type BucketRole,
  type HeaderRecord,
  type SiteRecord,
} from '../../../shared/site-archive/records.ts';

/** Object chunks per write call: bounds the buffer a single write holds (about 2.7 MB of text). */
const CHUNKS_PER_WRITE = 8;

export class SiteFileWriter {
  /** Bytes written so far (the checkpoint's cut). */
  length = 0;
  /** Records written so far, the header included. */
  records = 0;
  objects = 0;
  readonly counts: Record<string, number> = {};
  private readonly itemKeys = new Set<string>();
  private readonly objectKeys = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(private readonly file: FileHandle) {}

  /** A new file (any existing one is replaced), starting with its header. */
  static async create(path: string, header: HeaderRecord): Promise<SiteFileWriter> {
    const writer = new SiteFileWriter(await open(path, 'w'));
    await writer.enqueue(() => writer.append([header]));
    return writer;
  }

  /**
   * Reopens an interrupted file: cuts it back to `length` (whatever was written after the last
   * checkpoint goes) and reads back what stays, for the counts and the keys already written.
   */
  static async resume(path: string, length: number): Promise<SiteFileWriter> {
    const file = await open(path, 'r+');
    const { size } = await file.stat();
    if (size < length) {
      await file.close();
      throw new Error(`${path} is shorter (${size} bytes) than its checkpoint says (${length}): start again`);
    }
    await file.truncate(length);
    const writer = new SiteFileWriter(file);
    if (length > 0) await writer.readBack(path, length);
    writer.length = length;
    return writer;
  }

  /** Runs `operation` after every operation queued before it; the queue stops at the first failure. */
  enqueue<T>(operation: () => Promise<T>): Promise<T> {
    // Work a failed crawl left running must not touch the file (or the checkpoint) any more.
    if (this.closed) return Promise.reject(new Error('The site file is closed'));
    const next = this.queue.then(operation);
    this.queue = next;
    return next;
  }

  /** Plain table items, marshalled to DynamoDB JSON; a key already in the file is left out. */
  items(items: Record<string, unknown>[]): Promise<void> {
    // Marshalled before queueing: an item that cannot be (a crawler's bug) fails its caller only.
    const marshalled = items.map((item) => ({
      key: itemKey(item),
      record: { type: 'item', entity: entityOf(item), item: marshall(item, { removeUndefinedValues: true }) } as const,
    }));
    return this.enqueue(() => {
      const records: SiteRecord[] = [];
      for (const { key, record } of marshalled) {
        if (this.itemKeys.has(key)) continue;
        this.itemKeys.add(key);
        records.push(record);
      }
      return this.append(records);
    });
  }

  /** An S3 object as an `object` record and its `object_chunk` records; a key already written is left out. */
  object(bucket: BucketRole, key: string, contentType: string | null, bytes: Buffer): Promise<void> {
    return this.enqueue(async () => {
      const objectKey = `${bucket}/${key}`;
      if (this.objectKeys.has(objectKey)) return;
      this.objectKeys.add(objectKey);
      const chunks = Math.ceil(bytes.length / OBJECT_CHUNK_BYTES);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      await this.append([
        { type: 'object', bucket, key, content_type: contentType, size: bytes.length, sha256, chunks },
      ]);
      for (let first = 0; first < chunks; first += CHUNKS_PER_WRITE) {
        const batch: SiteRecord[] = [];
        for (let index = first; index < Math.min(chunks, first + CHUNKS_PER_WRITE); index += 1) {
          const data = bytes.subarray(index * OBJECT_CHUNK_BYTES, (index + 1) * OBJECT_CHUNK_BYTES).toString('base64');
          batch.push({ type: 'object_chunk', bucket, key, index, data });
        }
        await this.append(batch);
      }
    });
  }

  /** The `end` record, then closes the file. */
  finish(): Promise<void> {
    const finished = this.enqueue(async () => {
      await this.append([{ type: 'end', records: this.records, counts: { ...this.counts }, objects: this.objects }]);
      await this.file.sync();
      await this.file.close();
    });
    this.closed = true;
    return finished;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue.catch(() => undefined);
    await this.file.close().catch(() => undefined);
  }

  /** Writes whole lines at the end of the file; only ever called from a queued operation. */
  private async append(records: SiteRecord[]): Promise<void> {
    if (records.length === 0) return;
    const text = Buffer.from(records.map((record) => `${JSON.stringify(record)}\n`).join(''), 'utf8');
    let written = 0;
    while (written < text.length) {
      const { bytesWritten } = await this.file.write(text, written, text.length - written, this.length + written);
      written += bytesWritten;
    }
    this.length += text.length;
    for (const record of records) this.count(record);
  }

  private count(record: SiteRecord): void {
    if (record.type === 'end') return;
    this.records += 1;
    if (record.type === 'item') this.counts[record.entity] = (this.counts[record.entity] ?? 0) + 1;
    if (record.type === 'object') this.objects += 1;
  }

  private async readBack(path: string, length: number): Promise<void> {
    const lines = createInterface({
      input: createReadStream(path, { start: 0, end: length - 1 }),
      crlfDelay: Infinity,
    });
    for await (const line of lines) {
      if (!line) continue;
      const record = siteRecordSchema.parse(JSON.parse(line));
      this.count(record);
      if (record.type === 'item') this.itemKeys.add(itemKey(unmarshallKey(record.item)));
      if (record.type === 'object') this.objectKeys.add(`${record.bucket}/${record.key}`);
    }
  }
}

function itemKey(item: Record<string, unknown>): string {
  return `${String(item.pk)}\u0000${String(item.sk)}`;
}

function unmarshallKey(item: Record<string, unknown>): Record<string, unknown> {
  const plain = (value: unknown) => (value as { S?: string; N?: string })?.S ?? (value as { N?: string })?.N;
  return { pk: plain(item.pk), sk: plain(item.sk) };
}
