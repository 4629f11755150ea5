/** Where an import's objects live in the modules bucket: the package zip and its extracted content. */
import { config } from '../config.ts';

export function modulesBucket(): string {
  return config().MODULES_BUCKET;
}

/** Uploaded or fetched packages; the extracted content. Each function's IAM grant names the ones it uses. */
export const MODULE_PACKAGES_PREFIX = 'imports/';
export const MODULE_CONTENT_PREFIX = 'content/';

export function packageKey(importid: number): string {
  return `${MODULE_PACKAGES_PREFIX}${importid}/package.zip`;
}

export function contentPrefix(importid: number): string {
  return `${MODULE_CONTENT_PREFIX}${importid}/`;
}

export function contentKey(importid: number, path: string): string {
  return `${contentPrefix(importid)}${path}`;
}
