/**
 * Data built with a bundle (see RouteGroup.embeds): the JSON text of each embed is a file beside
 * the deployed bundle (infra/cdk/embeds.ts), read on first use rather than parsed with the code at
 * every cold start (an 800 KB OpenAPI document as a string literal cost the docs function about
 * 25 ms of import). The local stack runs the sources: it writes the same files into a folder of
 * its own (or finds those a test run's first stack wrote: infra/local/embeds.ts) and names that
 * folder in STEPWISE_EMBED_DIR (not the text itself: an environment variable over 128 KB makes
 * every later child process fail to spawn with E2BIG).
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { acceptsGzip } from './respond.ts';
import { type HttpMethod, type Reply, type RouteGroup, rawReply } from './route.ts';

/** The folder holding the embed files when the code does not run as a deployed bundle. */
export const EMBED_DIR_ENV = 'STEPWISE_EMBED_DIR';

/** The file beside a deployed bundle (or in STEPWISE_EMBED_DIR) that holds each embed. */
export const EMBED_FILE = {
  routeManifest: 'route-manifest.json',
  openApi: 'openapi.json',
  docsRenderer: 'docs-renderer.js',
  pageClient: 'page-client.json',
  scormRuntime: 'scorm-runtime.js',
} as const;

export type EmbedName = keyof typeof EMBED_FILE;

/**
 * The API reference renderer the docs page loads (decision 176): Scalar's self-contained browser
 * build, copied from its npm package beside the docs bundle, never fetched from a CDN.
 */
export const DOCS_RENDERER_PACKAGE_FILE = '@scalar/api-reference/dist/browser/standalone.js';

/**
 * The pages' own browser code (decision 294): the script and stylesheet esbuild builds from
 * functions/pages/client at synth (and when the local stack starts), served at
 * `/client/editor.<hash>.js|css` to the pages that load it.
 */
export interface PageClient {
  script: string;
  style: string;
}
/** The SCORM runtime the player's host page loads (issue 37): scorm-again's browser build (1.2 and 2004). */
export const SCORM_RUNTIME_PACKAGE_FILE = 'scorm-again/dist/scorm-again.min.js';

export interface ManifestEntry {
  group: string;
  method: HttpMethod;
  path: string;
  /** A site path, outside /api/2.0 (see RouteDef.site). */
  site?: true;
}

/** Which group serves each method and path: the route table without its code. */
export function routeManifest(groups: RouteGroup[]): ManifestEntry[] {
  return groups.flatMap((group) =>
    group.routes.map((route) => ({
      group: group.name,
      method: route.method,
      path: route.path,
      ...(route.site ? { site: true as const } : {}),
    })),
  );
}

/** Where the embed files are: beside a deployed bundle, or the folder the local stack names. */
function embedFolder(name: EmbedName): string {
  // A deployed bundle is CommonJS: __dirname is its asset folder (undefined in the ES-module sources).
  const folder = process.env[EMBED_DIR_ENV] || (typeof __dirname === 'string' ? __dirname : undefined);
  if (!folder) throw new Error(`${name} was not embedded: ${EMBED_DIR_ENV} is not set`);
  return folder;
}

function readEmbedded<T>(name: EmbedName): T {
  return JSON.parse(readFileSync(join(embedFolder(name), EMBED_FILE[name]), 'utf8')) as T;
}

/**
 * Writes the embed files into `folder` (the local stack, which runs the sources; it names the folder
 * in STEPWISE_EMBED_DIR): the JSON embeds, and copies of the docs renderer's and SCORM runtime's files.
 */
export function writeEmbedFiles(
  folder: string,
  embeds: { routeManifest: unknown; openApi: unknown; pageClient: PageClient },
  docsRendererSource: string,
  scormRuntimeSource: string,
): void {
  mkdirSync(folder, { recursive: true });
  for (const name of ['routeManifest', 'openApi', 'pageClient'] as const)
    writeFileSync(join(folder, EMBED_FILE[name]), JSON.stringify(embeds[name]));
  copyFileSync(docsRendererSource, join(folder, EMBED_FILE.docsRenderer));
  copyFileSync(scormRuntimeSource, join(folder, EMBED_FILE.scormRuntime));
}

export function embeddedRouteManifest(): ManifestEntry[] {
  return readEmbedded<ManifestEntry[]>('routeManifest');
}

export function embeddedOpenApi(): Record<string, unknown> {
  return readEmbedded<Record<string, unknown>>('openApi');
}

/** The pages' client script and stylesheet, checked for their shape (a file is trusted for nothing more). */
export function embeddedPageClient(): PageClient {
  const value = readEmbedded<Partial<PageClient>>('pageClient');
  if (typeof value?.script !== 'string' || typeof value.style !== 'string')
    throw new Error(`${EMBED_FILE.pageClient} holds no script and style`);
  return { script: value.script, style: value.style };
}

/** The renderer's JavaScript (not JSON): the file beside the bundle, or in the local stack's folder. */
export function embeddedDocsRenderer(): Buffer {
  return readFileSync(join(embedFolder('docsRenderer'), EMBED_FILE.docsRenderer));
}

/** scorm-again's browser file (JavaScript): the file beside the bundle, or in the local stack's folder. */
export function embeddedScormRuntime(): Buffer {
  return readFileSync(join(embedFolder('scormRuntime'), EMBED_FILE.scormRuntime));
}

/**
 * A script embedded beside the bundle (the docs renderer, scorm-again) as a GET's answer: read and
 * gzipped once per container, sent gzipped where the client's Accept-Encoding allows it
 * (`acceptsGzip`), with an ETag of both sizes and a day's caching.
 */
export function embeddedScript(read: () => Buffer): (acceptEncoding: string | undefined) => Reply {
  let packed: { plain: Buffer; gzipped: Buffer; etag: string } | undefined;
  return (acceptEncoding) => {
    if (!packed) {
      const plain = read();
      const gzipped = gzipSync(plain);
      packed = { plain, gzipped, etag: `"${plain.length.toString(36)}-${gzipped.length.toString(36)}"` };
    }
    const gzip = acceptsGzip(acceptEncoding);
    return rawReply(200, gzip ? packed.gzipped : packed.plain, 'text/javascript; charset=utf-8', {
      'cache-control': 'public, max-age=86400',
      etag: packed.etag,
      vary: 'accept-encoding',
      'x-content-type-options': 'nosniff',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    });
  };
}
