/**
 * The engines check npm would make, against the right Node. npm compares each package's `engines`
 * with the Node that runs npm (on a Node 20 machine: 32 false warnings, so .npmrc keeps npm to
 * errors); what runs the packages is the pinned Node 22 of the `node` devDependency. Here every
 * package of the lock file, and the project itself, must accept that Node.
 */
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
};
const pinned = manifest.devDependencies.node!;

it('every locked package and the project accept the pinned Node', () => {
  const refused: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    // An optional package npm cannot use (another platform's binary) is skipped silently, as npm does.
    if (entry.optional) continue;
    // Old packages wrote `engines` as an array of strings; npm ignores those too.
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (range && !semver.satisfies(pinned, range, { includePrerelease: true }))
      refused.push(`${path || 'stepwise'}: node ${range}`);
  }
  expect(refused).toEqual([]);
  expect(semver.satisfies(pinned, manifest.engines.node)).toBe(true);
});

it('npm keeps to errors, so its checks against the Node that runs npm print nothing', () => {
  expect(readFileSync('.npmrc', 'utf8')).toMatch(/^loglevel=error$/m);
});
