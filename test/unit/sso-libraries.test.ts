/**
 * openid-client and node-saml reach the sso function only through their side bundles
 * (`#openid-client`, `#node-saml`; decision 286), jose the xapi function through `#jose` (decision
 * 355): an import of one anywhere else, but for types, would put the library back into a bundle
 * every route of its function parses at cold start.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/repo-paths.ts';

const LIBRARIES =
  /^\s*(?:import|export)\s+(?!type\s)[^;]*?from\s+'(openid-client|@node-saml\/node-saml|oauth4webapi|jose)'/m;

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the SSO libraries', () => {
  it('are imported for their values only by their side-bundle entries', () => {
    const importers = ['functions', 'shared']
      .flatMap((top) => sources(join(REPO_ROOT, top)))
      .filter((path) => LIBRARIES.test(readFileSync(path, 'utf8')))
      .map((path) => relative(REPO_ROOT, path))
      .sort();
    // jose also checks the LRS's signed statements, through the xapi function's side bundle (#jose).
    expect(importers).toEqual([
      'functions/sso/libraries/node-saml.ts',
      'functions/sso/libraries/openid-client.ts',
      'functions/xapi/libraries/jose.ts',
    ]);
  });

  it('are side bundles in package.json', () => {
    const imports = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).imports;
    expect(imports['#openid-client']).toBe('./functions/sso/libraries/openid-client.ts');
    expect(imports['#node-saml']).toBe('./functions/sso/libraries/node-saml.ts');
    expect(imports['#jose']).toBe('./functions/xapi/libraries/jose.ts');
  });
});
