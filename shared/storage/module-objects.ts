/** Where an import's objects live in the modules bucket: the package zip and its extracted content. */
import { config } from '../config.ts';

export function modulesBucket(): string {
  return config().MODULES_BUCKET;
}

export function packageKey(importid: number): string {
  return `imports/${importid}/package.zip`;
}

export function contentPrefix(importid: number): string {
  return `content/${importid}/`;
}

export function contentKey(importid: number, path: string): string {
  return `${contentPrefix(importid)}${path}`;
}
