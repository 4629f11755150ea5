import { describe, expect, it } from 'vitest';
import {
  checkEntries,
  DEFAULT_ENTRY_LIMITS,
  locateManifest,
  PackageRejection,
  parseManifest,
} from '../../shared/domain/module-package.ts';
import { launchPath } from '../../shared/domain/package-paths.ts';
import { cmi5Xml, scorm12Manifest, scorm2004Manifest, tincanXml } from '../support/module-packages.ts';

function rejection(action: () => unknown): PackageRejection {
  try {
    action();
  } catch (error) {
    if (error instanceof PackageRejection) return error;
    throw error;
  }
  throw new Error('expected a PackageRejection');
}

describe('parseManifest', () => {
  it('reads SCORM 1.2: title of the default organization, the launch resource, the version', () => {
    expect(parseManifest('scorm', scorm12Manifest('Lockout Tagout'))).toMatchObject({
      standard: 'scorm12',
      identifier: 'com.example.LockoutTagout',
      title: 'Lockout Tagout',
      launch: 'index.html',
      schema_version: '1.2',
    });
  });

  it('reads SCORM 2004: nested items, parameters added to the launch', () => {
    expect(parseManifest('scorm', scorm2004Manifest('Forklift'))).toMatchObject({
      standard: 'scorm2004',
      title: 'Forklift',
      launch: 'content/start.html?lesson=1',
      schema_version: '2004 4th Edition',
    });
  });

  it('tells 1.2 from 2004 by namespace when no schemaversion is declared', () => {
    const v12 = scorm12Manifest('X').replace(/<metadata>.*<\/metadata>/s, '');
    const v2004 = scorm2004Manifest('Y').replace(/<metadata>.*<\/metadata>/s, '');
    expect(parseManifest('scorm', v12).standard).toBe('scorm12');
    expect(parseManifest('scorm', v2004).standard).toBe('scorm2004');
  });

  it('reads cmi5 and tincan', () => {
    expect(parseManifest('cmi5', cmi5Xml('Safety'))).toMatchObject({
      standard: 'cmi5',
      title: 'Safety',
      launch: 'au1/index.html',
      identifier: 'https://example.com/courses/safety',
    });
    expect(parseManifest('tincan', tincanXml('Story'))).toMatchObject({
      standard: 'tincan',
      title: 'Story',
      launch: 'story.html',
    });
  });

  it('refuses broken XML, an unknown SCORM version and a manifest without a launchable resource, each with its code', () => {
    expect(rejection(() => parseManifest('scorm', '<manifest><oops></manifest>')).code).toBe('manifest_invalid');
    expect(
      rejection(() => parseManifest('scorm', scorm12Manifest('X').replace('<schemaversion>1.2', '<schemaversion>1.1')))
        .code,
    ).toBe('unsupported_version');
    const noHref = scorm12Manifest('X').replace(/href="index.html"/g, '');
    expect(rejection(() => parseManifest('scorm', noHref)).code).toBe('manifest_invalid');
    expect(rejection(() => parseManifest('cmi5', '<courseStructure><course id="c"/></courseStructure>')).code).toBe(
      'manifest_invalid',
    );
  });
});

describe('locateManifest', () => {
  it('finds the manifest at the top', () => {
    expect(locateManifest(['index.html', 'imsmanifest.xml', 'css/'])).toEqual({
      manifestPath: 'imsmanifest.xml',
      kind: 'scorm',
      rootPrefix: '',
      repaired: false,
    });
    expect(locateManifest(['cmi5.xml', 'au/index.html']).kind).toBe('cmi5');
  });

  it('repairs a package zipped one folder too deep (macOS clutter ignored)', () => {
    expect(
      locateManifest(['course/', 'course/imsmanifest.xml', 'course/index.html', '__MACOSX/course/._index.html']),
    ).toEqual({
      manifestPath: 'course/imsmanifest.xml',
      kind: 'scorm',
      rootPrefix: 'course/',
      repaired: true,
    });
  });

  it('refuses a package without a manifest, or with one two folders deep', () => {
    expect(rejection(() => locateManifest(['index.html'])).code).toBe('manifest_missing');
    const twoDeep = rejection(() => locateManifest(['a/b/imsmanifest.xml', 'a/b/index.html']));
    expect(twoDeep.code).toBe('manifest_missing');
    expect(twoDeep.message).toContain('a/b/imsmanifest.xml');
    expect(rejection(() => locateManifest(['a/imsmanifest.xml', 'b/index.html'])).code).toBe('manifest_missing');
  });
});

describe('checkEntries', () => {
  const limits = { ...DEFAULT_ENTRY_LIMITS, maxExtractedBytes: 10 * 1024 * 1024 };
  const entry = (name: string, compressedSize: number, uncompressedSize: number) => ({
    name,
    compressedSize,
    uncompressedSize,
  });

  it('counts files and bytes of an ordinary package', () => {
    expect(
      checkEntries([entry('a/', 0, 0), entry('a/x.html', 100, 400), entry('big.mp4', 5_000_000, 5_100_000)], limits),
    ).toEqual({ files: 2, totalBytes: 5_100_400 });
  });

  it('stops a zip bomb by ratio and by total size, before extracting', () => {
    expect(rejection(() => checkEntries([entry('zeros.bin', 10_000, 5_000_000)], limits)).code).toBe('zip_bomb');
    expect(
      rejection(() =>
        checkEntries([entry('a.bin', 6_000_000, 6_000_000), entry('b.bin', 6_000_000, 6_000_000)], limits),
      ).code,
    ).toBe('zip_bomb');
    // A small, very compressible file is not a bomb.
    expect(checkEntries([entry('data.json', 100, 50_000)], limits).files).toBe(1);
  });

  it('refuses paths that leave the package and too many entries', () => {
    for (const name of ['../evil.sh', 'a/../../evil', '/etc/passwd', 'C:/x', 'a\\b']) {
      expect(rejection(() => checkEntries([entry(name, 1, 1)], limits)).code).toBe('unsafe_path');
    }
    const many = Array.from({ length: 5 }, (_, i) => entry(`f${i}`, 1, 1));
    expect(rejection(() => checkEntries(many, { ...limits, maxEntries: 4 })).code).toBe('too_many_files');
  });
});

describe('launchPath', () => {
  it('strips query and fragment, decodes, and leaves absolute URLs out', () => {
    expect(launchPath('content/start.html?lesson=1#top')).toBe('content/start.html');
    expect(launchPath('./My%20Course/index.html')).toBe('My Course/index.html');
    expect(launchPath('https://cdn.example.com/au/index.html')).toBeNull();
  });
});
