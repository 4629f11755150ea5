/**
 * Data built with a bundle (see RouteGroup.embeds): the JSON text of each embed is a file beside
 * the deployed bundle (infra/embeds.ts), read on first use rather than parsed with the code at
 * every cold start (an 800 KB OpenAPI document as a string literal cost the docs function about
 * 25 ms of import). The local stack runs the sources: it writes the same files into a folder of
 * its own and names that folder in STEPWISE_EMBED_DIR (not the text itself: an environment
 * variable over 128 KB makes every later child process fail to spawn with E2BIG).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HttpMethod, RouteGroup } from './route.ts';

/** The folder holding the embed files when the code does not run as a deployed bundle. */
export const EMBED_DIR_ENV = 'STEPWISE_EMBED_DIR';

/** The file beside a deployed bundle (or in STEPWISE_EMBED_DIR) that holds each embed. */
export const EMBED_FILE = {
  routeManifest: 'route-manifest.json',
  openApi: 'openapi.json',
} as const;

export type EmbedName = keyof typeof EMBED_FILE;

export interface ManifestEntry {
  group: string;
  method: HttpMethod;
  path: string;
}

/** Which group serves each method and path: the route table without its code. */
export function routeManifest(groups: RouteGroup[]): ManifestEntry[] {
  return groups.flatMap((group) =>
    group.routes.map((route) => ({ group: group.name, method: route.method, path: route.path })),
  );
}

function readEmbedded<T>(name: EmbedName): T {
  // A deployed bundle is CommonJS: __dirname is its asset folder (undefined in the ES-module sources).
  const folder = process.env[EMBED_DIR_ENV] || (typeof __dirname === 'string' ? __dirname : undefined);
  if (!folder) throw new Error(`${name} was not embedded: ${EMBED_DIR_ENV} is not set`);
  return JSON.parse(readFileSync(join(folder, EMBED_FILE[name]), 'utf8')) as T;
}

/** Writes the embed files into `folder` (the local stack, which runs the sources) and names it. */
export function writeEmbedFiles(folder: string, embeds: Record<EmbedName, unknown>): void {
  mkdirSync(folder, { recursive: true });
  for (const name of Object.keys(EMBED_FILE) as EmbedName[])
    writeFileSync(join(folder, EMBED_FILE[name]), JSON.stringify(embeds[name]));
  process.env[EMBED_DIR_ENV] = folder;
}

export function embeddedRouteManifest(): ManifestEntry[] {
  return readEmbedded<ManifestEntry[]>('routeManifest');
}

export function embeddedOpenApi(): Record<string, unknown> {
  return readEmbedded<Record<string, unknown>>('openApi');
}
