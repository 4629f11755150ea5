/**
 * Data built with a bundle (see RouteGroup.embeds): the JSON text of each embed is a file beside
 * the deployed bundle (infra/embeds.ts), read on first use rather than parsed with the code at
 * every cold start (an 800 KB OpenAPI document as a string literal cost the docs function about
 * 25 ms of import). The local stack runs the sources and sets the same text in the environment.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HttpMethod, RouteGroup } from './route.ts';

export const EMBED_ENV = {
  routeManifest: 'STEPWISE_ROUTE_MANIFEST',
  openApi: 'STEPWISE_OPENAPI',
} as const;

/** The file beside a deployed bundle that holds each embed. */
export const EMBED_FILE = {
  routeManifest: 'route-manifest.json',
  openApi: 'openapi.json',
} as const;

export type EmbedName = keyof typeof EMBED_ENV;

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

function readEmbedded<T>(name: EmbedName): T {
  const fromEnvironment = process.env[EMBED_ENV[name]];
  if (fromEnvironment) return JSON.parse(fromEnvironment) as T;
  // A deployed bundle is CommonJS: __dirname is its asset folder (undefined in the ES-module sources).
  if (typeof __dirname !== 'string') throw new Error(`${name} was not embedded: ${EMBED_ENV[name]} is not set`);
  return JSON.parse(readFileSync(join(__dirname, EMBED_FILE[name]), 'utf8')) as T;
}

export function embeddedRouteManifest(): ManifestEntry[] {
  return readEmbedded<ManifestEntry[]>('routeManifest');
}

export function embeddedOpenApi(): Record<string, unknown> {
  return readEmbedded<Record<string, unknown>>('openApi');
}
