/**
 * Data compiled into a bundle at build time (see RouteGroup.embeds). CDK injects each as an
 * esbuild `define` of the env name below; the local gateway sets the same env names, so the
 * same code reads them in both places.
 */
import type { HttpMethod, RouteGroup } from './route.ts';

export const EMBED_ENV = {
  routeManifest: 'STEPWISE_ROUTE_MANIFEST',
  openApi: 'STEPWISE_OPENAPI',
} as const;

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

function readEmbedded<T>(name: string): T {
  // Written out per name: esbuild replaces only literal `process.env.X` expressions.
  const raw = name === EMBED_ENV.routeManifest ? process.env.STEPWISE_ROUTE_MANIFEST : process.env.STEPWISE_OPENAPI;
  if (!raw) throw new Error(`${name} was not embedded in this bundle`);
  return JSON.parse(raw) as T;
}

export function embeddedRouteManifest(): ManifestEntry[] {
  return readEmbedded<ManifestEntry[]>(EMBED_ENV.routeManifest);
}

export function embeddedOpenApi(): Record<string, unknown> {
  return readEmbedded<Record<string, unknown>>(EMBED_ENV.openApi);
}
