/**
 * Writes site-file records, one JSON line each, into one S3 object through a streaming
 * multipart upload: memory holds at most one upload part whatever the object's size.
 */
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { Upload } from '@aws-sdk/lib-storage';
import { s3Client } from '../storage/s3-client.ts';
import type { SiteRecord } from './records.ts';

const UPLOAD_PART_BYTES = 5 * 1024 * 1024;

export class PartWriter {
  private readonly stream = new PassThrough();
  private readonly upload: Promise<unknown>;
  private failure: unknown;
  /** Bytes written so far. */
  bytes = 0;
  /** Records written so far. */
  records = 0;

  constructor(bucket: string, key: string) {
    this.upload = new Upload({
      client: s3Client(),
      params: { Bucket: bucket, Key: key, Body: this.stream, ContentType: 'application/x-ndjson' },
      partSize: UPLOAD_PART_BYTES,
      queueSize: 1,
      leavePartsOnError: false,
    })
      .done()
      .catch((error: unknown) => {
        this.failure = error;
        this.stream.destroy();
        throw error;
      });
    this.upload.catch(() => undefined);
  }

  async write(record: SiteRecord): Promise<void> {
    if (this.failure) throw this.failure;
    const line = `${JSON.stringify(record)}\n`;
    this.bytes += Buffer.byteLength(line);
    this.records += 1;
    if (!this.stream.write(line)) {
      // The upload drains the stream; a failed upload ends the wait with its error.
      await Promise.race([once(this.stream, 'drain'), this.upload]);
    }
  }

  /** Gives up the object (a failed step): the multipart upload is aborted, nothing is stored. */
  abort(error: unknown): void {
    this.stream.destroy(error instanceof Error ? error : new Error(String(error)));
  }

  /** Ends the object and waits until S3 holds it. */
  async close(): Promise<number> {
    this.stream.end();
    await this.upload;
    return this.bytes;
  }
}
