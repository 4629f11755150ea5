/**
 * The one S3 client every module uses (handlers, pipeline tasks, presigners).
 *
 * In AWS it is a plain regional client. With S3_ENDPOINT set (npm start, tests) it talks
 * path-style to the local emulator (infra/local/s3-emulator.ts), which only knows the
 * S3RVER/S3RVER key pair.
 */
import { S3Client, type ServiceInputTypes, type ServiceOutputTypes } from '@aws-sdk/client-s3';
// Type-only (erased at runtime): @smithy/types ships with every @aws-sdk client.
import type { BuildMiddleware } from '@smithy/types';
import { config } from '../config.ts';
import { offerClientToHook } from '../sdk-client-hook.ts';
import { EMULATOR_CREDENTIALS } from './emulator-credentials.ts';

let client: S3Client | undefined;

export function s3Client(): S3Client {
  if (!client) client = createS3Client();
  return client;
}

/** Drops the memoized client so the next call reads the (changed) configuration again. */
export function resetS3ClientForTests(): void {
  client?.destroy();
  client = undefined;
}

function createS3Client(): S3Client {
  const { S3_ENDPOINT, AWS_REGION } = config();
  const s3 = new S3Client({
    region: AWS_REGION,
    // The SDK default ('WHEN_SUPPORTED') sends aws-chunked bodies with trailing CRC32s and
    // bakes the checksum of an *empty* body into presigned PUT URLs. Real S3 would then
    // reject browser uploads, and the emulator rejects streamed bodies. Only send
    // checksums where an operation requires them.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(S3_ENDPOINT ? { endpoint: S3_ENDPOINT, forcePathStyle: true, credentials: EMULATOR_CREDENTIALS } : {}),
  });
  if (S3_ENDPOINT) {
    s3.middlewareStack.add(stripBucketTrailingSlash, {
      step: 'build',
      name: 'stepwiseS3rverBucketPathFix',
      override: true,
    });
  }
  return offerClientToHook(s3);
}

/**
 * Path-style requests on a bucket itself (ListObjectsV2, DeleteObjects, CreateBucket) go to
 * `/bucket/`, and the SDK signs that path; s3rver canonicalises it as `/bucket` and answers
 * 403 SignatureDoesNotMatch. Sending `/bucket` (signing runs later, in the finalize step)
 * keeps both sides in agreement. Object paths (`/bucket/key`) are untouched.
 */
const stripBucketTrailingSlash: BuildMiddleware<ServiceInputTypes, ServiceOutputTypes> = (next) => async (args) => {
  const request = args.request as { path?: unknown };
  if (typeof request.path === 'string' && /^\/[^/]+\/$/.test(request.path)) {
    request.path = request.path.slice(0, -1);
  }
  return next(args);
};
