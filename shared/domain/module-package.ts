/**
 * External training module packages, without I/O: where the manifest is (and repairing a
 * package zipped one folder too deep), what the manifest says (SCORM 1.2 and 2004
 * imsmanifest.xml, cmi5.xml, tincan.xml), and the zip-bomb and path rules for its entries.
 * Every refusal is a PackageRejection with a stable error code the import reports.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { parseScormManifest } from './scorm-manifest.ts';
import type { ScormStructure } from './scorm-structure.ts';
import { parseCmi5Course } from './xapi/cmi5-course.ts';
import type { Cmi5Course } from './xapi/cmi5-structure.ts';
// The codes and paths live in files of their own: the module-import entity (in most bundles) needs them
// without the XML parser.
import { launchPath } from './package-paths.ts';
import type { ImportErrorCode } from './module-import-errors.ts';

export class PackageRejection extends Error {
  constructor(
    readonly code: ImportErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'PackageRejection';
  }
}

export type PackageStandard = 'scorm12' | 'scorm2004' | 'cmi5' | 'tincan';

/** Manifest file names, in the order they are looked for. */
const MANIFESTS: Array<{ file: string; kind: 'scorm' | 'cmi5' | 'tincan' }> = [
  { file: 'imsmanifest.xml', kind: 'scorm' },
  { file: 'cmi5.xml', kind: 'cmi5' },
  { file: 'tincan.xml', kind: 'tincan' },
];

/** Archive clutter that never counts as content (macOS resource forks, Finder files). */
export function isArchiveClutter(name: string): boolean {
  return name.startsWith('__MACOSX/') || /(^|\/)\.DS_Store$/.test(name) || /(^|\/)Thumbs\.db$/i.test(name);
}

export interface PackageLayout {
  /** Entry name of the manifest. */
  manifestPath: string;
  kind: 'scorm' | 'cmi5' | 'tincan';
  /** Prefix stripped from every entry ('' normally; 'folder/' for a repaired package). */
  rootPrefix: string;
  repaired: boolean;
}

/**
 * Finds the manifest at the top of the package. A package whose files all sit in one folder
 * with the manifest directly inside it (zipped one folder too deep) is repaired by treating
 * that folder as the top.
 */
export function locateManifest(entryNames: string[]): PackageLayout {
  const files = entryNames.filter((name) => !name.endsWith('/') && !isArchiveClutter(name));
  const byLowerName = new Map(files.map((name) => [name.toLowerCase(), name]));
  for (const manifest of MANIFESTS) {
    const found = byLowerName.get(manifest.file);
    if (found) return { manifestPath: found, kind: manifest.kind, rootPrefix: '', repaired: false };
  }
  const topFolders = new Set(files.map((name) => (name.includes('/') ? name.slice(0, name.indexOf('/') + 1) : '')));
  if (topFolders.size === 1 && !topFolders.has('')) {
    const [folder] = [...topFolders] as [string];
    for (const manifest of MANIFESTS) {
      const found = byLowerName.get(`${folder}${manifest.file}`.toLowerCase());
      if (found) return { manifestPath: found, kind: manifest.kind, rootPrefix: folder, repaired: true };
    }
  }
  const deeper = files.find((name) => MANIFESTS.some((m) => name.toLowerCase().endsWith(`/${m.file}`)));
  throw new PackageRejection(
    'manifest_missing',
    deeper
      ? `The manifest is at ${deeper}; it must be at the top of the zip (or in its single top folder)`
      : 'The package has no imsmanifest.xml (SCORM), cmi5.xml or tincan.xml at its top',
  );
}

export interface ManifestFacts {
  standard: PackageStandard;
  /** The package's own identifier (manifest identifier, course id, activity id). */
  identifier: string | null;
  title: string;
  /** As written in the manifest: a path relative to the package top (maybe with a query), or an absolute URL (cmi5). */
  launch: string;
  /** The schema version the manifest declares (SCORM), if any. */
  schema_version: string | null;
  /** SCORM: organizations, items, launches (shared/domain/scorm-manifest.ts); absent before decision 269. */
  scorm?: ScormStructure;
  /** cmi5: the course structure, every block and AU (shared/domain/xapi/cmi5-course.ts); absent before decision 309. */
  cmi5?: Cmi5Course;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  isArray: (name) =>
    ['organization', 'item', 'resource', 'au', 'block', 'activity', 'langstring', 'name', 'launch'].includes(name),
});

type Node = Record<string, any>;

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string' || typeof value === 'number') return String(value).trim();
  if (Array.isArray(value)) return text(value[0]);
  if (typeof value === 'object') {
    const node = value as Node;
    if ('#text' in node) return text(node['#text']);
    if ('langstring' in node) return text(node.langstring);
    if ('string' in node) return text(node.string);
  }
  return '';
}

export function parseManifest(kind: PackageLayout['kind'], xml: string): ManifestFacts {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw new PackageRejection(
      'manifest_invalid',
      `The manifest is not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`,
    );
  }
  if (kind === 'scorm') return parseScormManifest(xml);
  if (kind === 'cmi5') return cmi5Facts(parseCmi5Course(xml));
  return parseTinCan(parser.parse(xml) as Node);
}

function cmi5Facts(course: Cmi5Course): ManifestFacts {
  return {
    standard: 'cmi5',
    identifier: course.course_id,
    title: course.title || course.aus[0]!.title || 'Untitled module',
    launch: course.aus[0]!.url,
    schema_version: null,
    cmi5: course,
  };
}

function parseTinCan(document: Node): ManifestFacts {
  const activities = (document.tincan?.activities?.activity ?? []) as Node[];
  const course =
    activities.find((a) => String(a['@_type'] ?? '').endsWith('/course') && text(a.launch)) ??
    activities.find((a) => text(a.launch));
  if (!course) throw new PackageRejection('manifest_invalid', 'tincan.xml has no activity with a <launch>');
  return {
    standard: 'tincan',
    identifier: course['@_id'] ? String(course['@_id']) : null,
    title: text(course.name) || 'Untitled module',
    launch: text(course.launch),
    schema_version: null,
  };
}

/**
 * Whether an uploaded package is a bare XML document rather than a zip: it does not open with a
 * zip's local header ("PK") and its first character (after a byte-order mark and white space) is
 * `<`. Only a cmi5.xml is accepted bare (the cmi5 specification's LMS requirements).
 */
export function looksLikeBareXml(head: Uint8Array): boolean {
  if (head[0] === 0x50 && head[1] === 0x4b) return false;
  const text = new TextDecoder().decode(head).replace(/^\uFEFF/, '');
  return text.trimStart().startsWith('<');
}

/**
 * A bare cmi5.xml is a package with no files: every AU must launch an absolute URL, and the
 * course structure is checked as a zipped one's.
 */
export function parseBareCmi5(xml: string): ManifestFacts {
  const facts = parseManifest('cmi5', xml);
  const relative = facts.cmi5!.aus.find((au) => launchPath(au.url) !== null);
  if (relative)
    throw new PackageRejection(
      'launch_missing',
      `A bare cmi5.xml has no files: <au id="${relative.id}"> launches "${relative.url}"; ` +
        'it must be an absolute URL',
    );
  return facts;
}

export interface EntryFacts {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
}

export interface PackageLimits {
  maxEntries: number;
  maxExtractedBytes: number;
  /** Entries at least this large may not compress better than maxRatio. */
  ratioCheckFromBytes: number;
  maxRatio: number;
}

export const DEFAULT_ENTRY_LIMITS: Omit<PackageLimits, 'maxExtractedBytes'> = {
  maxEntries: 20_000,
  ratioCheckFromBytes: 1024 * 1024,
  maxRatio: 100,
};

/** Refuses unsafe names and zip bombs from the central directory, before anything is extracted. */
export function checkEntries(entries: EntryFacts[], limits: PackageLimits): { files: number; totalBytes: number } {
  if (entries.length > limits.maxEntries) {
    throw new PackageRejection(
      'too_many_files',
      `The package has ${entries.length} entries; at most ${limits.maxEntries} are accepted`,
    );
  }
  let totalBytes = 0;
  let files = 0;
  for (const entry of entries) {
    if (!isSafeEntryName(entry.name))
      throw new PackageRejection('unsafe_path', `Entry "${entry.name}" points outside the package`);
    if (entry.name.endsWith('/')) continue;
    files++;
    totalBytes += entry.uncompressedSize;
    const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
    if (entry.uncompressedSize >= limits.ratioCheckFromBytes && ratio > limits.maxRatio) {
      throw new PackageRejection(
        'zip_bomb',
        `Entry "${entry.name}" expands ${Math.round(ratio)} times (${entry.compressedSize} -> ` +
          `${entry.uncompressedSize} bytes); at most ${limits.maxRatio} times is accepted`,
      );
    }
    if (totalBytes > limits.maxExtractedBytes) {
      throw new PackageRejection('zip_bomb', `The package expands to more than ${limits.maxExtractedBytes} bytes`);
    }
  }
  return { files, totalBytes };
}

export function isSafeEntryName(name: string): boolean {
  if (name === '' || name.includes('\0') || name.includes('\\')) return false;
  if (name.startsWith('/') || /^[a-z]:/i.test(name)) return false;
  return !name.split('/').some((segment) => segment === '..');
}
