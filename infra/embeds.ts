/**
 * Build-time data compiled into a group's bundle (RouteGroup.embeds; shared/http/embedded.ts
 * reads it as `process.env.STEPWISE_ROUTE_MANIFEST` / `process.env.STEPWISE_OPENAPI`).
 *
 * Not a plain esbuild `define` of the JSON text: CDK passes each define as one command-line
 * argument, and Linux caps a single argument at 128 KiB, which the OpenAPI document of the
 * full API exceeds. Instead the JSON text goes into a generated module that esbuild injects,
 * and `define` points `process.env.<NAME>` at that module's export.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EMBED_ENV, routeManifest } from '../shared/http/embedded.ts';
import { buildOpenApiDocument } from '../shared/http/openapi.ts';
import type { RouteGroup } from '../shared/http/route.ts';
import { REPO_ROOT } from './repo-paths.ts';

export type EmbedName = keyof typeof EMBED_ENV;

/** Inside the project root, so a Docker bundling fallback would see it as well. */
const EMBED_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'stepwise-embeds');

export interface EmbedBundling {
  define: Record<string, string>;
  inject: string[];
}

export function embedValue(name: EmbedName, groups: RouteGroup[]): unknown {
  return name === 'routeManifest' ? routeManifest(groups) : buildOpenApiDocument(groups);
}

/** The esbuild options that compile the given embeds into one bundle. */
export function embedBundling(names: readonly EmbedName[], groups: RouteGroup[]): EmbedBundling {
  const define: Record<string, string> = {};
  const exports: string[] = [];
  for (const name of [...new Set(names)].sort()) {
    const identifier = `__stepwise_embed_${EMBED_ENV[name]}`;
    define[`process.env.${EMBED_ENV[name]}`] = identifier;
    exports.push(`export const ${identifier} = ${JSON.stringify(JSON.stringify(embedValue(name, groups)))};\n`);
  }
  if (exports.length === 0) return { define, inject: [] };

  const source = exports.join('');
  // Named by content: identical embeds share a file, and a stale file is never reused.
  const file = join(EMBED_DIR, `${createHash('sha256').update(source).digest('hex').slice(0, 32)}.mjs`);
  mkdirSync(EMBED_DIR, { recursive: true });
  writeFileSync(file, source);
  return { define, inject: [file] };
}
