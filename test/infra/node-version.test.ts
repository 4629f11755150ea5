/**
 * The tests run on what Lambda runs: Node 22, installed by `npm ci` (the `node` devDependency)
 * and first on PATH in npm scripts and npx, so the workers and every process they spawn by
 * name use it rather than the machine's node (docs/local-stack.md).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const major = (version: string) => Number(/^v?(\d+)\./.exec(version)?.[1]);
const pinned = JSON.parse(readFileSync('package.json', 'utf8')).devDependencies.node as string;

describe('the Node the tests run on', () => {
  it('is the pinned Node 22 in the worker', () => {
    expect(major(pinned)).toBe(22);
    expect(process.versions.node).toBe(pinned);
  });

  it('is the same for a process spawned by name', () => {
    expect(execFileSync('node', ['--version'], { encoding: 'utf8' }).trim()).toBe(`v${pinned}`);
  });
});
