/**
 * Module import from a URL: fetches the package server-side (SSRF-safe, size and time capped:
 * shared/net/safe-fetch.ts) and streams it into the modules bucket as a multipart upload, so
 * memory stays at a few parts whatever the package size.
 */
import { Upload } from '@aws-sdk/lib-storage';
import { safeFetch } from '../../shared/net/safe-fetch.ts';
import { s3Client } from '../../shared/storage/s3-client.ts';
import { packageRejected } from './errors.ts';
import { importTask, packageLimits, progress, throttledPercent } from './import-task.ts';

/** Downloading is the first 20 % of an import by URL. */
const DOWNLOAD_SHARE = 20;

/**
 * GETs `url` into s3://bucket/key. Fails with the fetch's own reason (FetchRefusedError) when
 * the download is refused, too large or too slow; nothing is left in the bucket then.
 */
export async function fetchIntoBucket(input: {
  url: string;
  bucket: string;
  key: string;
  limits: { allowHosts: string[]; maxBytes: number; timeoutMs: number };
  /** Fraction of the file stored so far (when its size is known). */
  onProgress?: (fraction: number) => Promise<void>;
}): Promise<void> {
  const fetched = await safeFetch(input.url, input.limits);
  // The body's own failure (too large, too slow, cut off) is the reason, not what the upload makes of it.
  let bodyError: unknown;
  fetched.body.on('error', (error) => (bodyError ??= error));
  const upload = new Upload({
    client: s3Client(),
    params: { Bucket: input.bucket, Key: input.key, Body: fetched.body, ContentType: 'application/zip' },
    partSize: 5 * 1024 * 1024,
    queueSize: 1,
    leavePartsOnError: false,
  });
  const pending: Array<Promise<void>> = [];
  upload.on('httpUploadProgress', ({ loaded }) => {
    if (input.onProgress && fetched.contentLength && loaded)
      pending.push(input.onProgress(loaded / fetched.contentLength));
  });
  try {
    await upload.done();
  } catch (error) {
    throw bodyError ?? error;
  }
  await Promise.all(pending);
}

export const handler = importTask('FetchPackage', async (state) => {
  if (!state.url) throw packageRejected('fetch_failed', 'The import has no URL to fetch');
  await progress(state, 'downloading', 1);
  const limits = packageLimits();
  const report = throttledPercent((percent) => progress(state, 'downloading', percent));
  await fetchIntoBucket({
    url: state.url,
    bucket: state.bucket,
    key: state.key,
    limits: { allowHosts: limits.allowHosts, maxBytes: limits.maxPackageBytes, timeoutMs: limits.fetchTimeoutMs },
    onProgress: (fraction) => report(1 + fraction * (DOWNLOAD_SHARE - 1)),
  });
  return state;
});
