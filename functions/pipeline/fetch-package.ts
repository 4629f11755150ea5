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

export const handler = importTask('FetchPackage', async (state) => {
  if (!state.url) throw packageRejected('fetch_failed', 'The import has no URL to fetch');
  await progress(state, 'downloading', 1);
  const limits = packageLimits();
  const fetched = await safeFetch(state.url, { allowHosts: limits.allowHosts, maxBytes: limits.maxPackageBytes, timeoutMs: limits.fetchTimeoutMs });
  const upload = new Upload({
    client: s3Client(),
    params: { Bucket: state.bucket, Key: state.key, Body: fetched.body, ContentType: 'application/zip' },
    partSize: 5 * 1024 * 1024,
    queueSize: 1,
    leavePartsOnError: false,
  });
  const report = throttledPercent((percent) => progress(state, 'downloading', percent));
  const pending: Array<Promise<void>> = [];
  upload.on('httpUploadProgress', ({ loaded }) => {
    if (fetched.contentLength && loaded) pending.push(report(1 + (loaded / fetched.contentLength) * (DOWNLOAD_SHARE - 1)));
  });
  try {
    await upload.done();
  } catch (error) {
    // The body's own failure (too large, too slow) is the reason, not the upload's abort.
    throw (error as { cause?: unknown }).cause && (error as Error).name === 'AbortError' ? (error as { cause: unknown }).cause : error;
  }
  await Promise.all(pending);
  return state;
});
