/**
 * Module import: checks the package before anything is extracted. It must be a zip (read in
 * place in S3), its central directory must pass the zip-bomb and path rules, it must have a
 * manifest at its top (or one folder too deep: repaired), the manifest must parse, and the
 * file it launches must be in the package. A bare cmi5.xml (not a zip) is accepted too, as a
 * package with no files whose AUs all launch absolute URLs (docs/lrs.md).
 */
import type yauzl from 'yauzl';
import { arrayBuffer, text } from 'node:stream/consumers';
import {
  checkEntries,
  DEFAULT_ENTRY_LIMITS,
  locateManifest,
  looksLikeBareXml,
  PackageRejection,
  parseBareCmi5,
  parseManifest,
} from '../../shared/domain/module-package.ts';
import { launchPath } from '../../shared/domain/package-paths.ts';
import { launchedPaths } from '../../shared/domain/scorm-structure.ts';
import { normalizedPackagePath } from '../../shared/domain/package-paths.ts';
import { requireSize } from './import-state.ts';
import { importTask, packageLimits, progress } from './import-task.ts';
import { listEntries, openZip, S3RangeReader, zipError } from './s3-zip.ts';

const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

export const handler = importTask('ValidatePackage', async (state) => {
  const size = requireSize(state);
  const limits = packageLimits();
  if (size > limits.maxPackageBytes)
    throw new PackageRejection(
      'package_too_large',
      `The package is ${size} bytes; at most ${limits.maxPackageBytes} are accepted`,
    );
  if (size === 0) throw new PackageRejection('not_a_zip', 'The package is empty');
  await progress(state, 'validating', 22);

  const reader = new S3RangeReader(state.bucket, state.key, size);
  // Up to the manifest's bound, an upload that is XML and not a zip is a bare cmi5.xml.
  if (size <= MAX_MANIFEST_BYTES && looksLikeBareXml(await readRange(reader, 0, Math.min(size, 64)))) {
    const manifest = parseBareCmi5(new TextDecoder().decode(await readRange(reader, 0, size)));
    await progress(state, 'validating', 25);
    return {
      ...state,
      layout: { manifestPath: 'cmi5.xml', rootPrefix: '', repaired: false, bare: true },
      manifest,
      files: 0,
      totalBytes: 0,
    };
  }
  const zip = await openZip(reader, size);
  try {
    const entries = await listEntries(zip);
    const { files, totalBytes } = checkEntries(
      entries.map((entry) => ({
        name: entry.fileName,
        compressedSize: entry.compressedSize,
        uncompressedSize: entry.uncompressedSize,
      })),
      { ...DEFAULT_ENTRY_LIMITS, maxExtractedBytes: limits.maxExtractedBytes },
    );
    const names = entries.map((entry) => entry.fileName);
    const layout = locateManifest(names);
    const manifestEntry = entries.find((entry) => entry.fileName === layout.manifestPath)!;
    const manifest = parseManifest(layout.kind, await readManifest(zip, manifestEntry));
    const launch = launchPath(manifest.launch);
    const present = new Set(names);
    // SCORM: every item's resource must be in the package, not only the first (decision 269).
    // cmi5: every AU with a relative URL too (decision 309).
    const launched = manifest.scorm
      ? launchedPaths(manifest.scorm).map((href) => normalizedPackagePath(launchPath(href) ?? ''))
      : manifest.cmi5
        ? manifest.cmi5.aus.map((au) => launchPath(au.url)).map((path) => path && normalizedPackagePath(path))
        : [launch];
    for (const path of launched) {
      if (path !== null && !present.has(`${layout.rootPrefix}${path}`))
        throw new PackageRejection('launch_missing', `The manifest launches "${path}", which is not in the package`);
    }
    await progress(state, 'validating', 25);
    return {
      ...state,
      layout: { manifestPath: layout.manifestPath, rootPrefix: layout.rootPrefix, repaired: layout.repaired },
      manifest,
      files,
      totalBytes,
    };
  } finally {
    zip.close();
  }
});

async function readRange(reader: S3RangeReader, start: number, end: number): Promise<Buffer> {
  try {
    return Buffer.from(await arrayBuffer(reader.createReadStream({ start, end })));
  } catch (error) {
    throw zipError(error);
  }
}

async function readManifest(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<string> {
  if (entry.uncompressedSize > MAX_MANIFEST_BYTES)
    throw new PackageRejection(
      'manifest_invalid',
      `The manifest is ${entry.uncompressedSize} bytes; at most ${MAX_MANIFEST_BYTES}`,
    );
  try {
    return await text(await zip.openReadStreamPromise(entry));
  } catch (error) {
    throw zipError(error);
  }
}
