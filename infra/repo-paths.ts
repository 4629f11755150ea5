/** Absolute paths into this repository, so synth works from any working directory. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

export const LOCK_FILE = join(REPO_ROOT, 'package-lock.json');

/** package.json `version`: the release, which every function's environment carries (GET /health shows it). */
export function projectVersion(): string {
  return JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).version;
}

/** The Lambda entry of a function folder: `functions/<name>/handler.ts`. */
export function functionEntry(name: string): string {
  return join(REPO_ROOT, 'functions', name, 'handler.ts');
}

/** A repository-relative path (as the pipeline task list gives them) made absolute. */
export function repoPath(relativePath: string): string {
  return join(REPO_ROOT, relativePath);
}
