/**
 * The layering rules, checked on every relative import of infra/, functions/ and shared/
 * (`npm run deps:check`; test/unit/layering.test.ts runs the same check in the suite):
 *
 *   infra -> functions (route table and pipeline definition only) -> shared
 *   a group (functions/<group>/) never imports another group;
 *   inside shared/, an import points at a strictly lower rank (below), and shared/views takes
 *   only types from shared/db;
 *   shared/domain is pure: nothing but shared/domain, no AWS SDK, no file or network access.
 *
 * `npm run deps:check -- --graph` prints the folder-level dependency picture as well.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Ranks of the folders of shared/: an import points at a strictly lower rank, so two folders of
 * one rank never import each other; a folder that builds on another sits above it (decision 190).
 */
export const SHARED_RANKS: Record<string, number> = {
  domain: 0, // rules and types, no I/O
  config: 1, // shared/config.ts: environment, parsed once
  clock: 1, // shared/clock.ts: what time it is (nowSeconds)
  observability: 2, // logger, metrics (read the config)
  'sdk-client-hook': 3, // shared/sdk-client-hook.ts: the seam a host running the bundles uses (verify:deploy); logs
  db: 4, // DynamoDB: the table, entity files, retry, batch, paging
  storage: 4, // S3, and Secrets Manager secrets read by ARN
  mail: 4, // mail port and its adapters
  net: 4, // SSRF-safe fetch
  workflow: 4, // Step Functions client
  media: 5, // image work (sharp), on stored objects
  views: 5, // records -> wire shapes: pure projections (records in as types, signed URLs out)
  accounts: 5, // users, passwords, tokens (sends mail)
  events: 5, // the outbox's deliverer, webhooks, the event bus (fetches)
  search: 5, // the full-text search port, its adapter, the index store (S3 + head item) and the indexer
  training: 6, // course progress and course pages (shows courses through views)
  'site-archive': 6, // the site file (export, import, migration): records, table and bucket streams (resets passwords)
  content: 7, // guide, wiki and document use cases several groups share (a release refreshes training)
  'read-models': 8, // loads what views show (records, authors, marks, media, comments) and builds them
  http: 9, // router glue: auth, errors -> HTTP, validation
};

/**
 * The parts of infra/, by rank: an import stays in its part or points at a lower rank, never at
 * another part of the same rank. `cdk` is what deploys; the local stack, the operators' commands
 * and the repository's checks build on nothing but it; verify:deploy runs the synthesized app
 * (cdk) on the local stack (local).
 */
export const INFRA_RANKS: Record<string, number> = {
  'repo-paths': 0, // infra/repo-paths.ts: where things are in the repository, for every part
  cdk: 1, // the CDK app: stacks, constructs, grants, settings, embeds (cdk.json runs infra/cdk/app.ts)
  local: 2, // the local stack: npm start and the tests' stack
  ops: 2, // the operators' commands: migrate, export, import, admin:set-password
  checks: 2, // the repository's checks: layering, line length, route index
  verify: 3, // npm run verify:deploy: the synthesized bundles on the local stack
};

/** Imports across infra's ranks that are allowed anyway, each with its reason. */
const INFRA_EXCEPTIONS: Array<{ from: string; to: string; why: string }> = [
  {
    from: 'infra/local/local-functions.ts',
    to: 'infra/verify/bundled-functions.ts',
    why: 'the local stack runs the synthesized bundles instead of the sources when verify:deploy asks it to',
  },
];

/** The part of infra/ a file belongs to: its folder, or the file's own name at the top. */
export function infraPartOf(path: string): string {
  const [, second, third] = path.split('/');
  return third === undefined ? second.replace(/\.ts$/, '') : second;
}

/**
 * shared/views are projections: they take records, so from shared/db they import types only
 * (a read belongs to shared/read-models, which loads and then calls the views).
 */
const TYPE_ONLY_IMPORT = /^\s*(?:import|export)\s+type\s|^\s*import\s*\{\s*(?:type\s+\w+(?:\s+as\s+\w+)?\s*,?\s*)+\}/;

/**
 * What infra may take from functions/: the route table, the pipeline's definition and triggers, the
 * scheduled functions, and (for the local gateway, which answers unmatched requests as the
 * deployed $default route does) the fallback.
 */
const INFRA_MAY_IMPORT = [
  /^functions\/routes\.ts$/,
  /^functions\/[^/]+\/[^/]+\.routes\.ts$/,
  /^functions\/pipeline\/[^/]+\.definition\.ts$/,
  /^functions\/pipeline\/triggers\.ts$/,
  /^functions\/schedules\.ts$/,
  /^functions\/fallback\/fallback\.ts$/,
];
/** functions/routes.ts gathers every group's slice of the route table, and nothing else. */
const ROUTE_TABLE = 'functions/routes.ts';
/** functions/response-examples.ts gathers the groups' documented bodies for the route table (decision 355). */
const RESPONSE_EXAMPLES = 'functions/response-examples.ts';
/** Packages that do I/O; shared/domain stays free of them. */
const IO_PACKAGES = [/^@aws-sdk\//, /^node:(fs|net|http|https|child_process|dgram|dns)(\/|$)/, /^sharp$/];
/** node:net's address parsers are pure functions; its sockets are not. */
const PURE_NET_IMPORT = /^\s*import\s*\{\s*(?:(?:isIP|isIPv4|isIPv6)\s*,?\s*)+\}\s*from\s*['"]node:net['"]/;

export interface Violation {
  from: string;
  to: string;
  rule: string;
}

export interface Edge {
  from: string;
  to: string;
}

/** `import … from 'x'` / `export … from 'x'`, `import('x')` and a bare `import 'x'`. */
const IMPORT = new RegExp(
  [
    String.raw`(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*['"]([^'"]+)['"]`,
    String.raw`import\(\s*['"]([^'"]+)['"]\s*\)`,
    String.raw`(?:^|\n)\s*import\s*['"]([^'"]+)['"]`,
  ].join('|'),
  'g',
);

function sourceFiles(root: string, folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) found.push(path);
    }
  };
  walk(folder);
  return found;
}

/** Every import of infra/, functions/ and shared/: relative ones resolved to repo paths, packages as named. */
export function importsOf(root: string): Array<{ from: string; specifier: string; to?: string; statement: string }> {
  const out: Array<{ from: string; specifier: string; to?: string; statement: string }> = [];
  for (const file of ['infra', 'functions', 'shared'].flatMap((folder) => sourceFiles(root, folder))) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3];
      const to = specifier.startsWith('.')
        ? relative(root, resolve(root, dirname(file), specifier))
            .split('\\')
            .join('/')
        : undefined;
      out.push({ from: file, specifier, to, statement: match[0] });
    }
  }
  return out;
}

/** The folder a file belongs to for the rules: functions/<group>, shared/<folder>, infra, test. */
export function unitOf(path: string): string {
  const [top, second] = path.split('/');
  if (top === 'functions') return path === ROUTE_TABLE ? ROUTE_TABLE : `functions/${second}`;
  if (top === 'shared') return `shared/${second.replace(/\.ts$/, '')}`;
  return top;
}

function ruleBroken(from: string, to: string, statement = ''): string | undefined {
  const fromTop = from.split('/')[0];
  const toTop = to.split('/')[0];
  if (fromTop === 'shared') {
    if (toTop !== 'shared') return 'shared imports nothing outside shared/';
    const fromFolder = unitOf(from).slice('shared/'.length);
    const toFolder = unitOf(to).slice('shared/'.length);
    const fromRank = SHARED_RANKS[fromFolder];
    const toRank = SHARED_RANKS[toFolder];
    if (fromRank === undefined)
      return `shared/${fromFolder} has no rank in SHARED_RANKS (infra/checks/dependencies.ts)`;
    if (toRank === undefined) return `shared/${toFolder} has no rank in SHARED_RANKS (infra/checks/dependencies.ts)`;
    if (fromFolder === 'domain' && toFolder !== 'domain') return 'shared/domain imports only shared/domain';
    if (fromFolder === toFolder) return undefined;
    if (toRank > fromRank)
      return `an arrow running up: shared/${fromFolder} (rank ${fromRank}) -> shared/${toFolder} (rank ${toRank})`;
    if (toRank === fromRank)
      return `an arrow between equals: shared/${fromFolder} and shared/${toFolder} share rank ${fromRank}`;
    if (fromFolder === 'views' && toFolder === 'db' && !TYPE_ONLY_IMPORT.test(statement))
      return 'shared/views imports only types from shared/db (reads live in shared/read-models)';
    return undefined;
  }
  if (fromTop === 'functions') {
    if (toTop === 'shared') return undefined;
    if (toTop !== 'functions') return 'functions import only functions/ and shared/';
    if (from === ROUTE_TABLE)
      return /^functions\/[^/]+\/[^/]+\.routes\.ts$/.test(to) || to === RESPONSE_EXAMPLES
        ? undefined
        : 'functions/routes.ts gathers routes files and their response examples only';
    if (from === RESPONSE_EXAMPLES)
      return /^functions\/([^/]+)\/\1\.response-examples\.json$/.test(to)
        ? undefined
        : "functions/response-examples.ts gathers the groups' examples files only";
    if (unitOf(from) !== unitOf(to)) return `a group imports another group: ${unitOf(from)} -> ${unitOf(to)}`;
    return undefined;
  }
  if (fromTop === 'infra') {
    if (toTop === 'infra') return infraRuleBroken(from, to);
    if (toTop === 'shared') return undefined;
    if (toTop === 'functions')
      return INFRA_MAY_IMPORT.some((allowed) => allowed.test(to))
        ? undefined
        : 'infra takes only the route table and the pipeline definition from functions/';
    return 'infra imports only infra/, functions/ and shared/';
  }
  return undefined;
}

function infraRuleBroken(from: string, to: string): string | undefined {
  const fromPart = infraPartOf(from);
  const toPart = infraPartOf(to);
  if (fromPart === toPart) return undefined;
  if (INFRA_EXCEPTIONS.some((exception) => exception.from === from && exception.to === to)) return undefined;
  const fromRank = INFRA_RANKS[fromPart];
  const toRank = INFRA_RANKS[toPart];
  if (fromRank === undefined) return `infra/${fromPart} has no rank in INFRA_RANKS (infra/checks/dependencies.ts)`;
  if (toRank === undefined) return `infra/${toPart} has no rank in INFRA_RANKS (infra/checks/dependencies.ts)`;
  if (toRank >= fromRank) return `infra/${fromPart} (rank ${fromRank}) may not import infra/${toPart} (rank ${toRank})`;
  return undefined;
}

/** Every broken rule, and the folder-level edges (for the picture). */
export function checkDependencies(root: string): { violations: Violation[]; edges: Edge[] } {
  const violations: Violation[] = [];
  const edges = new Map<string, Edge>();
  for (const { from, specifier, to, statement } of importsOf(root)) {
    if (to === undefined) {
      if (
        from.startsWith('shared/domain/') &&
        IO_PACKAGES.some((pattern) => pattern.test(specifier)) &&
        !PURE_NET_IMPORT.test(statement)
      ) {
        violations.push({ from, to: specifier, rule: 'shared/domain does no I/O' });
      }
      continue;
    }
    const rule = ruleBroken(from, to, statement);
    if (rule) violations.push({ from, to, rule });
    const edge = { from: unitOf(from), to: unitOf(to) };
    if (edge.from !== edge.to) edges.set(`${edge.from} ${edge.to}`, edge);
  }
  return {
    violations,
    edges: [...edges.values()].sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to)),
  };
}

/** The picture: each folder with the folders it imports, shared/ by rank. */
export function dependencyPicture(edges: Edge[]): string {
  const targets = new Map<string, string[]>();
  for (const edge of edges) targets.set(edge.from, [...(targets.get(edge.from) ?? []), edge.to]);
  const rankOf = (unit: string) =>
    unit.startsWith('shared/') ? (SHARED_RANKS[unit.slice(7)] ?? 9) : unit === 'infra' ? 20 : 10;
  return [...targets.keys()]
    .sort((a, b) => rankOf(b) - rankOf(a) || a.localeCompare(b))
    .map((unit) => `${unit} -> ${targets.get(unit)!.join(', ')}`)
    .join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  const { violations, edges } = checkDependencies(root);
  if (process.argv.includes('--graph')) console.log(`${dependencyPicture(edges)}\n`);
  for (const violation of violations) console.error(`${violation.from} -> ${violation.to}: ${violation.rule}`);
  console.log(
    violations.length === 0
      ? `Layering holds (${edges.length} folder-level arrows).`
      : `${violations.length} import(s) break the layering rules.`,
  );
  process.exitCode = violations.length === 0 ? 0 : 1;
}
