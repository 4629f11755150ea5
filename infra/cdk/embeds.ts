/**
 * Build-time data shipped with a group's bundle (RouteGroup.embeds): the JSON text of each embed,
 * written here and copied beside the bundle as the file shared/http/embedded.ts reads on first
 * use (`EMBED_FILE`). Not compiled into the bundle: a string literal is parsed with the code at
 * every cold start (the OpenAPI document, about 800 KB, cost the docs function ~25 ms of import).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import {
  DOCS_RENDERER_PACKAGE_FILE,
  EMBED_FILE,
  type EmbedName,
  type PageClient,
  routeManifest,
  SCORM_RUNTIME_PACKAGE_FILE,
} from '../../shared/http/embedded.ts';
import { buildOpenApiDocument } from '../../shared/http/openapi.ts';
import type { RouteGroup } from '../../shared/http/route.ts';
import { REPO_ROOT } from '../repo-paths.ts';

export type { EmbedName };

/** Inside the project root, so a Docker bundling fallback would see it as well. */
const EMBED_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'stepwise-embeds');

export interface EmbedFile {
  /** The JSON text, written under node_modules/.cache. */
  source: string;
  /** Its name beside the bundle. */
  name: string;
}

export interface EmbedBundling {
  files: EmbedFile[];
}

/** The renderer's file in node_modules: copied as it is, no JSON. */
export const DOCS_RENDERER_SOURCE = join(REPO_ROOT, 'node_modules', DOCS_RENDERER_PACKAGE_FILE);

/** scorm-again's browser build in node_modules, copied as it is beside the pages bundle. */
export const SCORM_RUNTIME_SOURCE = join(REPO_ROOT, 'node_modules', SCORM_RUNTIME_PACKAGE_FILE);

/** The pages' browser code: TypeScript and CSS under functions/pages/client (decision 294). */
export const PAGE_CLIENT_ENTRY = join(REPO_ROOT, 'functions', 'pages', 'client', 'editor.ts');

/**
 * Builds the pages' client script and its stylesheet with the project's esbuild: one minified
 * IIFE for current browsers (no framework, no module loader), the CSS it imports beside it.
 */
export function buildPageClient(): PageClient {
  const result = buildSync({
    entryPoints: [PAGE_CLIENT_ENTRY],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    outdir: join(EMBED_DIR, 'page-client'),
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const output = (extension: string) => {
    const file = result.outputFiles.find((candidate) => candidate.path.endsWith(extension));
    if (!file) throw new Error(`the page client build made no ${extension} file`);
    return file.text;
  };
  return { script: output('.js'), style: output('.css') };
}

export function embedValue(name: Exclude<EmbedName, 'docsRenderer' | 'scormRuntime'>, groups: RouteGroup[]): unknown {
  if (name === 'pageClient') return buildPageClient();
  return name === 'routeManifest' ? routeManifest(groups) : buildOpenApiDocument(groups);
}

/** The files that carry the given embeds beside one bundle. */
export function embedBundling(names: readonly EmbedName[], groups: RouteGroup[]): EmbedBundling {
  mkdirSync(EMBED_DIR, { recursive: true });
  const files = [...new Set(names)].sort().map((name) => {
    if (name === 'docsRenderer') return { source: DOCS_RENDERER_SOURCE, name: EMBED_FILE[name] };
    if (name === 'scormRuntime') return { source: SCORM_RUNTIME_SOURCE, name: EMBED_FILE[name] };
    const text = JSON.stringify(embedValue(name, groups));
    // Named by content: identical embeds share a file, and a stale file is never reused.
    const source = join(EMBED_DIR, `${createHash('sha256').update(text).digest('hex').slice(0, 32)}.json`);
    writeFileSync(source, text);
    return { source, name: EMBED_FILE[name] };
  });
  return { files };
}
