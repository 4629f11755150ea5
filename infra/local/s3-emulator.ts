/**
 * The local S3: @20minutes/s3rver (checks SigV4 on headers and presigned URLs) in-process on
 * 127.0.0.1, behind the POST-policy proxy (s3-post-policy-proxy.ts). Clients use the proxy
 * URL as S3_ENDPOINT; see shared/storage/s3-client.ts for the client side of the traps.
 * `onObjectCreated` stands in for S3 event notifications: it is called after each object is
 * stored, with the object's size and ETag, the way S3 would notify a Lambda asynchronously.
 */
import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { startS3PostPolicyProxy, type CreatedObject } from './s3-post-policy-proxy.ts';

/** What S3 puts in an ObjectCreated event record about the object. */
export interface ObjectCreatedNotice extends CreatedObject {
  size: number;
  eTag: string;
  time: Date;
}

export interface LocalS3 {
  /** The proxy URL, e.g. http://127.0.0.1:4569; use it as S3_ENDPOINT. */
  endpoint: string;
  close(): Promise<void>;
}

export interface S3EmulatorOptions {
  /** Where objects live; created if missing, kept across restarts. */
  directory: string;
  /** Buckets created (if missing) at start. */
  buckets: string[];
  /** 0 or undefined: any free port. */
  port?: number;
  /** Told after every stored object; a failure is logged, as an async Lambda invoke would be. */
  onObjectCreated?: (notice: ObjectCreatedNotice) => Promise<void> | void;
}

/** s3rver knows one account; its key pair is the only one it accepts. */
const EMULATOR_KEYS: Record<string, string> = { S3RVER: 'S3RVER' };

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  configureBuckets: Array<{ name: string; configs?: string[] }>;
}) => S3rverInstance;

/**
 * The buckets' CORS rules, as the stateful stack gives the deployed ones (`browserCors`): the
 * pages' editor posts uploads to the emulator from the site's origin and reads their progress,
 * which needs a preflight and an allowed origin.
 */
const BROWSER_CORS = `<CORSConfiguration>
  <CORSRule>
    <AllowedOrigin>*</AllowedOrigin>
    <AllowedMethod>POST</AllowedMethod>
    <AllowedMethod>GET</AllowedMethod>
    <AllowedMethod>HEAD</AllowedMethod>
    <AllowedHeader>*</AllowedHeader>
    <ExposeHeader>ETag</ExposeHeader>
    <ExposeHeader>Location</ExposeHeader>
    <MaxAgeSeconds>3600</MaxAgeSeconds>
  </CORSRule>
</CORSConfiguration>`;

// s3rver is CommonJS without type declarations; require() also keeps vitest's module
// runner from transforming its dependency tree.
const S3rver = createRequire(import.meta.url)('@20minutes/s3rver') as S3rverConstructor;

export async function startS3Emulator(options: S3EmulatorOptions): Promise<LocalS3> {
  const directory = path.resolve(options.directory);
  await mkdir(directory, { recursive: true });

  const s3rver = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: options.buckets.map((name) => ({ name, configs: [BROWSER_CORS] })),
  });
  const { port: upstreamPort } = await s3rver.run();

  let proxy: Awaited<ReturnType<typeof startS3PostPolicyProxy>>;
  try {
    proxy = await startS3PostPolicyProxy({
      upstream: { host: '127.0.0.1', port: upstreamPort },
      port: options.port,
      secretFor: (accessKeyId) => EMULATOR_KEYS[accessKeyId],
      onObjectCreated: options.onObjectCreated
        ? (created) => void notify(upstreamPort, created, options.onObjectCreated!)
        : undefined,
    });
  } catch (error) {
    await s3rver.close();
    throw error;
  }

  return {
    endpoint: proxy.url,
    close: async () => {
      await proxy.close();
      await s3rver.close();
    },
  };
}

/** Reads size and ETag straight from s3rver (it accepts unsigned requests), then notifies. */
async function notify(
  upstreamPort: number,
  created: CreatedObject,
  listener: (notice: ObjectCreatedNotice) => Promise<void> | void,
): Promise<void> {
  try {
    const head = await headObject(upstreamPort, created.bucket, created.key);
    if (!head) return; // deleted again before the notification went out
    await listener({ ...created, ...head, time: new Date() });
  } catch (error) {
    console.error(`S3 event notification for s3://${created.bucket}/${created.key} failed:`, error);
  }
}

function headObject(port: number, bucket: string, key: string): Promise<{ size: number; eTag: string } | undefined> {
  const path = `/${encodeURIComponent(bucket)}/${key.split('/').map(encodeURIComponent).join('/')}`;
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method: 'HEAD', path }, (response) => {
      response.resume();
      if (response.statusCode === 404) return resolve(undefined);
      if (response.statusCode !== 200) return reject(new Error(`HEAD ${path} answered ${response.statusCode}`));
      resolve({
        size: Number(response.headers['content-length'] ?? 0),
        eTag: String(response.headers.etag ?? '').replace(/"/g, ''),
      });
    });
    request.once('error', reject);
    request.end();
  });
}
