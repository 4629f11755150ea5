/**
 * Presigned URLs and POST forms are signed without a call to AWS, so the SDK hook of
 * iam-check.ts never sees them; S3 authorizes them at use time, as the signer's role. This finds
 * every one a bundled function hands out (in its response body, JSON, or a Location header) and
 * names the request S3 will authorize: GetObject for a query-signed URL (the project presigns
 * GETs only: shared/storage/objects.ts), PutObject for a POST form on the bucket and key its
 * policy names. bundled-functions.ts authorizes each against the function's role (decision 142).
 */
import type { RequiredPermission } from './sdk-actions.ts';

const bucketArn = (bucket: string, partition: string) => `arn:${partition}:s3:::${bucket}`;

/** Bucket and key of an S3 URL, path-style (`host/bucket/key`) or virtual-hosted (`bucket.s3.<region>...`). */
function objectOf(url: URL): { bucket: string; key: string } | undefined {
  const segments = url.pathname.split('/').slice(1).map(decodeURIComponent);
  const virtualHost = /^(.+)\.s3[.-]/.exec(url.hostname);
  if (virtualHost) return { bucket: virtualHost[1], key: segments.join('/') };
  const [bucket, ...key] = segments;
  return bucket ? { bucket, key: key.join('/') } : undefined;
}

function presignedUrl(text: string, partition: string): RequiredPermission | undefined {
  if (!text.includes('X-Amz-Signature=')) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (!url.searchParams.has('X-Amz-Credential')) return undefined;
  const object = objectOf(url);
  if (!object) throw new Error(`presigned URL without a bucket: ${text}`);
  return { action: 's3:GetObject', resource: `${bucketArn(object.bucket, partition)}/${object.key}` };
}

interface PolicyDocument {
  conditions?: Array<Record<string, string> | string[]>;
}

/** A presigned POST form ({url, fields: {Policy, X-Amz-Credential, key ...}}): the object it may create. */
function presignedForm(value: Record<string, unknown>, partition: string): RequiredPermission | undefined {
  const fields = value.fields as Record<string, string> | undefined;
  if (typeof value.url !== 'string' || !fields || typeof fields !== 'object') return undefined;
  const policyText = fields.Policy ?? fields.policy;
  if (!policyText || !(fields['X-Amz-Credential'] ?? fields['x-amz-credential'])) return undefined;
  const policy = JSON.parse(Buffer.from(policyText, 'base64').toString('utf8')) as PolicyDocument;
  const exact = (name: string) =>
    policy.conditions?.find(
      (condition): condition is Record<string, string> => !Array.isArray(condition) && name in condition,
    )?.[name];
  const bucket = exact('bucket') ?? objectOf(new URL(value.url))?.bucket;
  const key = exact('key') ?? fields.key;
  if (!bucket || !key) throw new Error(`presigned POST form without a bucket or key: ${JSON.stringify(value)}`);
  return { action: 's3:PutObject', resource: `${bucketArn(bucket, partition)}/${key}` };
}

/** Every presigned request in a Lambda proxy result. */
export function presignedRequests(result: unknown, partition: string): RequiredPermission[] {
  const found: RequiredPermission[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      const url = presignedUrl(value, partition);
      if (url) found.push(url);
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      const form = presignedForm(value as Record<string, unknown>, partition);
      if (form) found.push(form);
      else Object.values(value).forEach(walk);
    }
  };
  const response = result as { body?: unknown; headers?: Record<string, string>; isBase64Encoded?: boolean } | null;
  if (!response || typeof response !== 'object') return found;
  const location = Object.entries(response.headers ?? {}).find(([name]) => name.toLowerCase() === 'location')?.[1];
  if (location) walk(location);
  if (typeof response.body === 'string' && !response.isBase64Encoded && /^\s*[[{]/.test(response.body)) {
    try {
      walk(JSON.parse(response.body));
    } catch {
      // not JSON after all: nothing presigned to find
    }
  }
  return found;
}
