/**
 * Reads a zip in S3 without downloading it whole: yauzl asks for byte ranges (the central
 * directory at the end, then each entry), served from 1 MiB ranged GETs kept in a small LRU
 * with one block of read-ahead. Memory stays at about BLOCK_BYTES * MAX_BLOCKS whatever the
 * package size.
 */
import { Readable } from 'node:stream';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import yauzl from 'yauzl';
import { PackageRejection } from '../../shared/domain/module-package.ts';
import { s3Client } from '../../shared/storage/s3-client.ts';
import { PipelineError, storageError } from './errors.ts';

const BLOCK_BYTES = 1024 * 1024;
const MAX_BLOCKS = 8;

export class S3RangeReader extends yauzl.RandomAccessReader {
  private readonly blocks = new Map<number, Promise<Buffer>>();
  /** Ranged GETs sent, for tests and the benchmark. */
  requests = 0;

  constructor(
    private readonly bucket: string,
    private readonly key: string,
    private readonly size: number,
  ) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return Readable.from(this.bytes(start, end), { objectMode: false });
  }

  private async *bytes(start: number, end: number): AsyncGenerator<Buffer> {
    const first = Math.floor(start / BLOCK_BYTES);
    const last = Math.floor((end - 1) / BLOCK_BYTES);
    for (let index = first; index <= last; index++) {
      if (index < last) this.block(index + 1).catch(() => undefined); // read ahead
      const block = await this.block(index);
      const from = index === first ? start - index * BLOCK_BYTES : 0;
      const to = index === last ? end - index * BLOCK_BYTES : block.length;
      yield block.subarray(from, to);
    }
  }

  private block(index: number): Promise<Buffer> {
    const cached = this.blocks.get(index);
    if (cached) {
      this.blocks.delete(index);
      this.blocks.set(index, cached); // most recently used last
      return cached;
    }
    const loading = this.fetch(index);
    loading.catch(() => this.blocks.delete(index));
    this.blocks.set(index, loading);
    while (this.blocks.size > MAX_BLOCKS) this.blocks.delete(this.blocks.keys().next().value!);
    return loading;
  }

  private async fetch(index: number): Promise<Buffer> {
    const from = index * BLOCK_BYTES;
    const to = Math.min(from + BLOCK_BYTES, this.size) - 1;
    this.requests++;
    try {
      const result = await s3Client().send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.key, Range: `bytes=${from}-${to}` }),
      );
      return Buffer.from(await result.Body!.transformToByteArray());
    } catch (error) {
      throw storageError(error, `Reading bytes ${from}-${to} of s3://${this.bucket}/${this.key}`);
    }
  }
}

/** yauzl's file-name checks (decodeStrings) report these; they mean an unsafe entry name. */
const UNSAFE_NAME = /absolute path|invalid relative path|invalid characters in fileName/;

/**
 * yauzl's complaints as import error codes; the pipeline's own errors (a PipelineError, whatever
 * its name: TransientStorageError from a ranged GET, ...), package refusals and SDK errors pass
 * through untouched.
 */
export function zipError(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof PipelineError || error instanceof PackageRejection) return error;
  if ((error as { $metadata?: unknown }).$metadata) return error;
  if (UNSAFE_NAME.test(error.message))
    return new PackageRejection('unsafe_path', `Unsafe entry name: ${error.message}`);
  return new PackageRejection('not_a_zip', `Not a readable zip file: ${error.message}`);
}

export async function openZip(reader: S3RangeReader, size: number): Promise<yauzl.ZipFile> {
  try {
    return await yauzl.fromRandomAccessReaderPromise(reader, size, {
      lazyEntries: true,
      autoClose: false,
      decodeStrings: true,
      // An entry inflating to more than its central-directory size fails: declared sizes are what the bomb checks
      // trust.
      validateEntrySizes: true,
      strictFileNames: false,
    });
  } catch (error) {
    throw zipError(error);
  }
}

/** Every entry of the central directory (no content is read). */
export async function listEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  const entries: yauzl.Entry[] = [];
  try {
    for await (const entry of zip.eachEntry()) entries.push(entry);
  } catch (error) {
    throw zipError(error);
  }
  return entries;
}
