/**
 * A presigned POST upload (S3's browser-form upload): a multipart/form-data body with the
 * presigned fields first and the file last, as `file`. The file is streamed from disk; the body's
 * length is computed up front because S3 refuses a chunked POST.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

export interface UploadTarget {
  url: string;
  fields: Record<string, string>;
}

export async function uploadFile(
  target: UploadTarget,
  filePath: string,
  onBytes: (sent: number, total: number) => void = () => undefined,
): Promise<void> {
  const { size } = await stat(filePath);
  const boundary = `----stepwise${randomBytes(12).toString('hex')}`;
  const fieldParts = Object.entries(target.fields).map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  const fileHead =
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${path.basename(filePath)}"\r\n` +
    'Content-Type: application/x-ndjson\r\n\r\n';
  const head = Buffer.from(fieldParts.join('') + fileHead, 'utf8');
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  const url = new URL(target.url);
  const transport = url.protocol === 'https:' ? https : http;

  await new Promise<void>((resolve, reject) => {
    const request = transport.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(head.length + size + tail.length),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve();
          else
            reject(
              new Error(`The upload was refused (${status}): ${Buffer.concat(chunks).toString('utf8').slice(0, 500)}`),
            );
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.write(head);
    let sent = 0;
    const file = createReadStream(filePath);
    file.on('data', (chunk) => {
      sent += chunk.length;
      onBytes(sent, size);
    });
    file.on('error', (error) => {
      request.destroy(error);
      reject(error);
    });
    file.on('end', () => request.end(tail));
    file.pipe(request, { end: false });
  });
}
