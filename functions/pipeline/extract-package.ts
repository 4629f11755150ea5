/**
 * Module import: streams every file of the package into the modules bucket under
 * content/<importid>/, one entry at a time, each inflated straight into a (multipart) upload.
 * Memory is bounded by the zip reader's block cache plus one upload's parts, never by the
 * package. A package zipped one folder too deep is extracted from that folder. Entries may
 * not inflate past their declared sizes (yauzl checks), and the running total is capped again.
 */
import { Upload } from '@aws-sdk/lib-storage';
import { Transform } from 'node:stream';
import { isArchiveClutter, PackageRejection } from '../../shared/domain/module-package.ts';
import { contentKey } from '../../shared/storage/module-objects.ts';
import { s3Client } from '../../shared/storage/s3-client.ts';
import { PipelineError, PipelineErrorName } from './errors.ts';
import { requireSize } from './import-state.ts';
import { importTask, packageLimits, progress, throttledPercent } from './import-task.ts';
import { openZip, S3RangeReader, zipError } from './s3-zip.ts';

const FIRST_PERCENT = 30;
const LAST_PERCENT = 95;

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html',
  htm: 'text/html',
  js: 'text/javascript',
  mjs: 'text/javascript',
  css: 'text/css',
  json: 'application/json',
  xml: 'application/xml',
  xsd: 'application/xml',
  txt: 'text/plain',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  ico: 'image/x-icon',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  pdf: 'application/pdf',
  swf: 'application/x-shockwave-flash',
  vtt: 'text/vtt',
};

function contentTypeOf(path: string): string {
  return CONTENT_TYPES[path.slice(path.lastIndexOf('.') + 1).toLowerCase()] ?? 'application/octet-stream';
}

export const handler = importTask('ExtractPackage', async (state) => {
  const size = requireSize(state);
  if (!state.layout)
    throw new PipelineError(
      PipelineErrorName.InvalidInput,
      'The package layout is missing (ValidatePackage runs first)',
    );
  // A bare cmi5.xml has no files: its AUs launch absolute URLs.
  if (state.layout.bare) return { ...state, extractedFiles: 0, extractedBytes: 0 };
  const { rootPrefix } = state.layout;
  const limits = packageLimits();
  const expected = Math.max(state.totalBytes ?? 0, 1);
  const report = throttledPercent((percent) => progress(state, 'extracting', percent));
  await report(FIRST_PERCENT);

  const zip = await openZip(new S3RangeReader(state.bucket, state.key, size), size);
  let files = 0;
  let bytes = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName;
      if (name.endsWith('/') || isArchiveClutter(name) || !name.startsWith(rootPrefix)) continue;
      const path = name.slice(rootPrefix.length);
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          bytes += chunk.length;
          if (bytes > limits.maxExtractedBytes)
            callback(new PackageRejection('zip_bomb', `The package expands past ${limits.maxExtractedBytes} bytes`));
          else callback(null, chunk);
        },
      });
      const inflated = await zip.openReadStreamPromise(entry);
      // pipe() does not pass errors on: a corrupt entry must fail the upload, not hang it.
      inflated.on('error', (error) => counter.destroy(error));
      const stream = inflated.pipe(counter);
      const upload = new Upload({
        client: s3Client(),
        params: {
          Bucket: state.bucket,
          Key: contentKey(state.importid, path),
          Body: stream,
          ContentType: contentTypeOf(path),
        },
        partSize: 5 * 1024 * 1024,
        queueSize: 1,
        leavePartsOnError: false,
      });
      await upload.done();
      files++;
      await report(FIRST_PERCENT + (Math.min(bytes, expected) / expected) * (LAST_PERCENT - FIRST_PERCENT));
    }
  } catch (error) {
    throw error instanceof PackageRejection || error instanceof PipelineError ? error : zipError(error);
  } finally {
    zip.close();
  }
  return { ...state, extractedFiles: files, extractedBytes: bytes };
});
