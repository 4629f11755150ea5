/**
 * Presigned GET URLs without the S3 client. Guide, quiz and media views hand one out for every
 * image and file they show, so the functions serving them would otherwise load the S3 client
 * (and its serializers) on their first read, or carry it through every cold start. Signing a
 * GET is SigV4 over a URL: the signer every AWS SDK client already carries, the role's
 * credentials, the bucket's regional endpoint (decision 160). The URL is the one the SDK's
 * getSignedUrl(GetObjectCommand) builds, byte for byte (test/unit/presigned-get.test.ts).
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, Checksum, SourceData } from '@smithy/types';
// In the bundles this is infra/cdk/constructs/lambda-credential-provider.ts (esbuild alias), as for every client.
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { config } from '../config.ts';
import { encodeRfc3986 } from '../domain/text.ts';
import { EMULATOR_CREDENTIALS } from './emulator-credentials.ts';

export interface PresignGetRequest {
  bucket: string;
  key: string;
  expiresInSeconds: number;
  /** S3 answers with this Content-Disposition (the URL's response-content-disposition). */
  contentDisposition?: string;
  /** The signing time; now unless a test fixes it. */
  signingDate?: Date;
}

/** Bytes of the SDK's SourceData (string, buffer or view). */
const bytesOf = (data: SourceData): string | Uint8Array =>
  typeof data === 'string' || data instanceof Uint8Array
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

/** The SHA-256 the signer asks for: a hash, or an HMAC when given a key. */
export class NodeSha256 implements Checksum {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(this.secret));
  }
  update(data: Uint8Array): void {
    this.hash.update(data);
  }
  async digest(): Promise<Uint8Array> {
    return this.hash.digest();
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

export interface S3Site {
  region: string;
  /** The local emulator's URL (S3_ENDPOINT): path-style requests there. Unset in AWS. */
  endpoint?: string;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
}

export type GetPresigner = (input: PresignGetRequest) => Promise<string>;

/**
 * Where S3 serves the object: the emulator path-style; in AWS the bucket's virtual host on the
 * regional endpoint, as the SDK addresses a bucket whose name is one DNS label (path-style otherwise).
 */
function objectLocation(site: S3Site, bucket: string, key: string) {
  const encodedKey = key.split('/').map(encodeRfc3986).join('/');
  if (site.endpoint) {
    const endpoint = new URL(site.endpoint);
    const basePath = endpoint.pathname.replace(/\/$/, '');
    return { endpoint, path: `${basePath}/${bucket}/${encodedKey}` };
  }
  const dnsSuffix = site.region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
  const regional = `s3.${site.region}.${dnsSuffix}`;
  const virtualHost = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/.test(bucket);
  return virtualHost
    ? { endpoint: new URL(`https://${bucket}.${regional}`), path: `/${encodedKey}` }
    : { endpoint: new URL(`https://${regional}`), path: `/${bucket}/${encodedKey}` };
}

/** The query as the SDK formats it: names sorted, names and values escaped. */
function queryString(query: Record<string, string | string[] | null | undefined>): string {
  return Object.keys(query)
    .sort()
    .flatMap((name) => {
      const value = query[name];
      const values = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
      return values.map((one) => `${encodeRfc3986(name)}=${encodeRfc3986(one)}`);
    })
    .join('&');
}

export function createGetPresigner(site: S3Site): GetPresigner {
  const signer = new SignatureV4({
    service: 's3',
    region: site.region,
    credentials: site.credentials,
    sha256: NodeSha256,
    // S3 signs the path as sent: a key's "/" and its escapes are not escaped again.
    uriEscapePath: false,
    applyChecksum: false,
  });
  return async (input) => {
    const { endpoint, path } = objectLocation(site, input.bucket, input.key);
    const query: Record<string, string> = { 'x-id': 'GetObject' };
    if (input.contentDisposition !== undefined) query['response-content-disposition'] = input.contentDisposition;
    const presigned = await signer.presign(
      {
        method: 'GET',
        protocol: endpoint.protocol,
        hostname: endpoint.hostname,
        port: endpoint.port ? Number(endpoint.port) : undefined,
        path,
        query,
        // The SDK's spelling: the signer hoists it into the query under this name.
        headers: { host: endpoint.host, 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD' },
      },
      {
        expiresIn: input.expiresInSeconds,
        signingDate: input.signingDate,
        unsignableHeaders: new Set(['content-type']),
      },
    );
    return `${endpoint.protocol}//${endpoint.host}${presigned.path}?${queryString(presigned.query ?? {})}`;
  };
}

let presigner: { settings: ReturnType<typeof config>; presign: GetPresigner } | undefined;

/** A GET URL for an object of this site's buckets (rebuilt only when the configuration is read anew). */
export function presignGetObject(input: PresignGetRequest): Promise<string> {
  const settings = config();
  if (presigner?.settings !== settings) {
    const { AWS_REGION, S3_ENDPOINT } = settings;
    const credentials = S3_ENDPOINT ? EMULATOR_CREDENTIALS : defaultProvider();
    presigner = { settings, presign: createGetPresigner({ region: AWS_REGION, endpoint: S3_ENDPOINT, credentials }) };
  }
  return presigner.presign(input);
}
