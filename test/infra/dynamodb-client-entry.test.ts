/**
 * The bundles take `@aws-sdk/client-dynamodb` from infra/cdk/constructs/dynamodb-client-entry.js
 * (decision 338). A name imported from the package that the entry does not export would fail only
 * the bundling (`npm run synth`), which the tests skip: this checks every value name the bundled
 * code imports (the project, lib-dynamodb, Powertools' idempotency) against the entry, and that
 * every file the entry names exists.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DYNAMODB_CLIENT_ENTRY, DYNAMODB_CLIENT_PACKAGE } from '../../infra/cdk/constructs/project-function.ts';
import { REPO_ROOT } from '../../infra/repo-paths.ts';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'client' ? [] : files(path);
    return /\.(ts|js|mjs)$/.test(name) ? [path] : [];
  });
}

/** Value names (not `type` ones) imported from the package in a file's text. */
function importedNames(text: string): string[] {
  const names: string[] = [];
  const pattern = new RegExp(`import\\s*\\{([^}]*)\\}\\s*from\\s*['"]${DYNAMODB_CLIENT_PACKAGE}['"]`, 'g');
  for (const match of text.matchAll(pattern)) {
    for (const part of match[1].split(',')) {
      const name = part.trim().split(/\s+as\s+/)[0];
      if (name && !name.startsWith('type ')) names.push(name);
    }
  }
  return names;
}

const entry = readFileSync(DYNAMODB_CLIENT_ENTRY, 'utf8');
const entryDir = dirname(DYNAMODB_CLIENT_ENTRY);
const sources = [...entry.matchAll(/from '([^']+)'/g)].map((match) => resolve(entryDir, match[1]));

/** What the entry exports: its `export { X }` names and the classes and consts of its `export *` files. */
function exportedNames(): Set<string> {
  const names = new Set([...entry.matchAll(/export \{\s*(\w+),?\s*\}/g)].map((match) => match[1]));
  for (const match of entry.matchAll(/export \* from '([^']+)'/g)) {
    const text = readFileSync(resolve(entryDir, match[1]), 'utf8');
    for (const name of text.matchAll(/export (?:class|const|var|let|function) (\w+)/g)) names.add(name[1]);
  }
  return names;
}

describe('the DynamoDB client entry of the bundles', () => {
  it('names files that exist', () => {
    expect(sources.length).toBeGreaterThan(10);
    for (const source of sources) expect(existsSync(source), source).toBe(true);
  });

  it('exports every name the bundled code imports from the package', () => {
    const importers = [
      ...files(join(REPO_ROOT, 'shared')),
      ...files(join(REPO_ROOT, 'functions')),
      ...files(join(REPO_ROOT, 'node_modules', '@aws-sdk', 'lib-dynamodb', 'dist-es')),
      ...files(join(REPO_ROOT, 'node_modules', '@aws-lambda-powertools', 'idempotency', 'lib', 'esm')),
    ];
    const imported = new Set(importers.flatMap((file) => importedNames(readFileSync(file, 'utf8'))));
    expect(imported).toContain('GetItemCommand');
    const exported = exportedNames();
    const types = new Set(['AttributeValue']);
    expect([...imported].filter((name) => !exported.has(name) && !types.has(name))).toEqual([]);
  });
});
