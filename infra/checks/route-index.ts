/**
 * The route index (docs/routes.md): every route of the table with the file and line that declares
 * it, so a reader goes from `GET /guides/{guideid}` to its code in one step. Generated from the
 * route table and the routes files' text; `npm run routes:index` rewrites it, and
 * test/unit/route-index.test.ts fails while it is stale.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { routeGroups } from '../../functions/routes.ts';
import type { RouteGroup } from '../../shared/http/route.ts';
import { REPO_ROOT } from '../repo-paths.ts';

export const ROUTE_INDEX_FILE = join(REPO_ROOT, 'docs/routes.md');

interface Declaration {
  method: string;
  path: string;
  file: string;
  line: number;
}

/**
 * `method: 'GET',` followed by `path: '/x'` on the next line (comment lines between allowed), as the
 * formatter writes a route(...);
 * a template literal path (`/wikis/${namespace}/...`) matches any one segment where it interpolates.
 */
const DECLARATION = /^\s*method: '([A-Z]+)',\n(?:\s*\/\/.*\n)*\s*path: ['`]([^'`]+)['`],/gm;

export function routeDeclarations(files: string[], read = (file: string) => readFileSync(file, 'utf8')): Declaration[] {
  const found: Declaration[] = [];
  for (const file of files) {
    const text = read(file);
    for (const match of text.matchAll(DECLARATION)) {
      const line = text.slice(0, match.index).split('\n').length;
      found.push({ method: match[1], path: match[2], file: relative(REPO_ROOT, file), line });
    }
  }
  return found;
}

function routesFiles(): string[] {
  const functionsDir = join(REPO_ROOT, 'functions');
  return readdirSync(functionsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) =>
      readdirSync(join(functionsDir, entry.name))
        .filter((name) => name.endsWith('.routes.ts'))
        .map((name) => join(functionsDir, entry.name, name)),
    )
    .sort();
}

/**
 * The declaration of one route: its exact path, or else the one an alias is built from (a group
 * that serves a path under two prefixes, e.g. `/courses/stage-sign-offs/...`, declares it once).
 */
function declarationsOf(method: string, path: string, group: string, declarations: Declaration[]): Declaration[] {
  const ofGroup = declarations.filter((site) => site.method === method && site.file.startsWith(`functions/${group}/`));
  const exact = ofGroup.filter((site) => pathPattern(site.path, '^').test(path));
  return exact.length > 0 ? exact : ofGroup.filter((site) => pathPattern(site.path, '').test(path));
}

function pathPattern(declared: string, anchor: '^' | ''): RegExp {
  const literal = declared.replace(/[.*+?^${}()|[\]\\]/g, (char) => `\\${char}`);
  return new RegExp(`${anchor}${literal.replace(/\\\$\\\{[^}]*\\\}/g, '[^/]+')}$`);
}

const escapeCell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function renderRouteIndex(groups: RouteGroup[], declarations: Declaration[]): string {
  const rows: string[] = [];
  for (const group of [...groups].sort((a, b) => a.name.localeCompare(b.name))) {
    for (const route of group.routes) {
      const key = `${route.method} ${route.path}`;
      const sites = declarationsOf(route.method, route.path, group.name, declarations);
      if (sites.length !== 1) {
        throw new Error(`${key} (group ${group.name}): found ${sites.length} declarations in its routes files`);
      }
      const site = `[${sites[0].file}:${sites[0].line}](../${sites[0].file}#L${sites[0].line})`;
      const path = route.site ? `\`${route.path}\` (site root)` : `\`${route.path}\``;
      const cells = [route.method, path, group.name, route.auth, escapeCell(route.summary), site];
      rows.push(`| ${cells.join(' | ')} |`);
    }
  }
  return [
    '# Route index',
    '',
    'Generated from the route table by `npm run routes:index`; do not edit by hand',
    '(test/unit/route-index.test.ts fails while it is stale). Paths are under `/api/2.0`, except',
    'site paths (decision 187), marked "(site root)".',
    'The readable reference, with schemas and examples, is `/api/2.0/doc`.',
    '',
    `${rows.length} routes.`,
    '',
    '| Method | Path | Group | Auth | Summary | Declared at |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

export function currentRouteIndex(): string {
  return renderRouteIndex(routeGroups, routeDeclarations(routesFiles()));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(ROUTE_INDEX_FILE, currentRouteIndex());
  console.log(`wrote ${relative(REPO_ROOT, ROUTE_INDEX_FILE)}`);
}
