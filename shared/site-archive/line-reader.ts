/**
 * Reads a JSON Lines object from a byte offset (an S3 Range read, streamed), giving each line
 * with the offset of the line after it, so a job can stop anywhere between lines and resume
 * there in its next step. Memory holds one line and one network chunk, and a line longer than
 * MAX_LINE_BYTES ends the read with LineTooLong before it is held whole (a hostile 30 MB line).
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { s3Client } from '../storage/s3-client.ts';

/**
 * The longest line a site file may hold: an item is at most 400 KB in DynamoDB and an object
 * chunk 256 KB before base64, so 4 MiB leaves room for any JSON escaping of either.
 */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

export class LineTooLong extends Error {
  constructor(
    /** Byte offset of the line's first byte. */
    readonly start: number,
    readonly limit: number,
  ) {
    super(`A line starting at byte ${start} is longer than ${limit} bytes`);
    this.name = 'LineTooLong';
  }
}

export interface Line {
  text: string;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just past its newline (where the next line starts). */
  next: number;
  /** False for a last line without a newline (a cut file, or a file written by hand). */
  terminated: boolean;
}

export async function* readLines(
  bucket: string,
  key: string,
  offset: number,
  size: number,
  maxLineBytes = MAX_LINE_BYTES,
): AsyncGenerator<Line> {
  if (offset >= size) return;
  const result = await s3Client().send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=${offset}-` }));
  const body = result.Body as AsyncIterable<Uint8Array>;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let position = offset;
  try {
    for await (const chunk of body) {
      let buffer = Buffer.from(chunk);
      let newline = buffer.indexOf(10);
      while (newline !== -1) {
        const piece = buffer.subarray(0, newline);
        const lineBytes = pendingBytes + piece.length;
        if (lineBytes > maxLineBytes) throw new LineTooLong(position, maxLineBytes);
        const text = Buffer.concat([...pending, piece]).toString('utf8');
        pending = [];
        pendingBytes = 0;
        const start = position;
        position += lineBytes + 1;
        yield { text, start, next: position, terminated: true };
        buffer = buffer.subarray(newline + 1);
        newline = buffer.indexOf(10);
      }
      if (buffer.length > 0) {
        pending.push(buffer);
        pendingBytes += buffer.length;
        if (pendingBytes > maxLineBytes) throw new LineTooLong(position, maxLineBytes);
      }
    }
  } finally {
    // A consumer that stops early (a time budget) must not leave the socket open.
    (result.Body as { destroy?: () => void } | undefined)?.destroy?.();
  }
  if (pendingBytes > 0) {
    yield {
      text: Buffer.concat(pending).toString('utf8'),
      start: position,
      next: position + pendingBytes,
      terminated: false,
    };
  }
}
