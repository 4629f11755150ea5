/**
 * Launch-scoped capabilities for a module's package content on the content origin (decision 270).
 * A launch hands out `<contentUrl>/c/<importid>/<token>/<path>`: the token names the import and
 * an expiry, sealed with HMAC-SHA-256 under the content signing key. Because the token is a path
 * segment, every relative asset the package loads (scripts, styles, images, media) carries it
 * without a cookie (a content origin in a frame of another site gets no third-party cookies in
 * Safari, and soon not in Chromium) and it opens that import's files only.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface ContentGrant {
  importid: number;
  /** Unix seconds. */
  expires: number;
}

function seal(key: string, importid: number, expires: number): string {
  return createHmac('sha256', key).update(`content:${importid}:${expires}`).digest('base64url');
}

export function contentToken(key: string, grant: ContentGrant): string {
  return `${grant.expires}.${seal(key, grant.importid, grant.expires)}`;
}

/** The path of a package file under the content origin, with the token that opens it. */
export function contentPath(key: string, grant: ContentGrant, path: string): string {
  const encoded = path
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
  return `/c/${grant.importid}/${contentToken(key, grant)}/${encoded}`;
}

export type ContentRequest =
  | { ok: true; importid: number; path: string }
  | { ok: false; status: 403 | 404; reason: string };

/**
 * Reads `/c/<importid>/<token>/<path>` (the query is not part of it): the import and the package
 * path when the token is sound and not expired; 403 otherwise, 404 for a path that is no file.
 */
export function openContentRequest(key: string, urlPath: string, nowSeconds: number): ContentRequest {
  const match = /^\/c\/([1-9][0-9]{0,15})\/([0-9]{1,12})\.([A-Za-z0-9_-]{43})\/(.+)$/.exec(urlPath);
  if (!match) return { ok: false, status: 404, reason: 'not a content path' };
  const importid = Number(match[1]);
  const expires = Number(match[2]);
  const given = Buffer.from(match[3]!);
  const expected = Buffer.from(seal(key, importid, expires));
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, status: 403, reason: 'bad token' };
  if (expires < nowSeconds) return { ok: false, status: 403, reason: 'expired' };
  let path: string;
  try {
    path = decodeURIComponent(match[4]!);
  } catch {
    return { ok: false, status: 404, reason: 'bad path encoding' };
  }
  const segments = path.split('/');
  if (path.includes('\0') || path.includes('\\') || segments.some((segment) => segment === '..' || segment === ''))
    return { ok: false, status: 404, reason: 'not a package path' };
  return { ok: true, importid, path: segments.filter((segment) => segment !== '.').join('/') };
}
