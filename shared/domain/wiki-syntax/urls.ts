/**
 * URL rules: which URLs a text may link to or show, and the site paths of guides, wikis and
 * images. The tree stores site paths (`/Guide/12`); the renderer makes them absolute.
 */
import { encodeUriComponentSafe } from '../text.ts';
import { decodeEntities } from './escape.ts';
import { DEFAULT_IMAGE_SIZE, IMAGE_SIZES, WIKI_NAMESPACES, type ImageSize, type WikiNamespace } from './types.ts';

const LINK_SCHEMES = ['http:', 'https:', 'mailto:'];
const IMAGE_SCHEMES = ['http:', 'https:'];

/**
 * An external URL as typed in markup, if it is one we link to (or show, for images):
 * `http(s)://host…` or `mailto:user@host`. Returns the URL as typed (trimmed), or undefined.
 */
export function externalUrl(raw: string, kind: 'link' | 'image' = 'link'): string | undefined {
  const url = raw.trim();
  // No whitespace, quotes, angle brackets or backticks anywhere: such a "URL" is text.
  const shape =
    kind === 'link'
      ? /^(?:https?:\/\/[^\s"'<>`/?#]+[^\s"<>`]*|mailto:[^\s"'<>`@]+@[^\s"'<>`]+)$/i
      : /^https?:\/\/[^\s"'<>`/?#]+[^\s"<>`]*$/i;
  if (url.length > 2048 || !shape.test(url)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const schemes = kind === 'link' ? LINK_SCHEMES : IMAGE_SCHEMES;
  if (!schemes.includes(parsed.protocol)) return undefined;
  if (parsed.protocol !== 'mailto:' && parsed.hostname === '') return undefined;
  return url;
}

/** Characters a browser drops from a URL (or treats as a separator) before reading its scheme. */
const INVISIBLE =
  /[\u0000-\u0020\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g;

/**
 * Checks a URL that is about to go into an attribute (or already is one, entity-encoded), after
 * entity decoding and stripping whitespace and invisible characters. Site paths (`/x`) resolve
 * against siteUrl. Returns the absolute URL to write, or undefined if it is not allowed.
 */
export function safeAttributeUrl(value: string, kind: 'link' | 'image', siteUrl?: string): string | undefined {
  let url = decodeEntities(value).replace(INVISIBLE, '');
  if (siteUrl !== undefined && url.startsWith('/') && !url.startsWith('//') && !url.startsWith('/\\')) {
    url = siteBase(siteUrl) + url;
  }
  const match = /^([a-z][a-z0-9+.-]*:)/i.exec(url);
  if (!match) return undefined;
  const schemes = kind === 'link' ? LINK_SCHEMES : IMAGE_SCHEMES;
  if (!schemes.includes(match[1]!.toLowerCase())) return undefined;
  if (match[1]!.toLowerCase() !== 'mailto:' && !/^https?:\/\/[^/\\?#@]/i.test(url)) return undefined;
  return url;
}

/** The site's base URL without a trailing slash. */
export function siteBase(siteUrl: string): string {
  return siteUrl.replace(/\/+$/, '');
}

export function guidePath(guideid: number): string {
  return `/Guide/${guideid}`;
}

/**
 * `WIKI` → `Wiki`, `CATEGORY` → `c`: the first path segment of a wiki page. Categories take
 * Dozuki's short form `/c/<name>` (the iOS QR scanner opens only `(c|device)/<name>`); the
 * older `/Category/<title>` redirects there (decision 192).
 */
export function namespaceSegment(namespace: WikiNamespace): string {
  if (namespace === 'CATEGORY') return 'c';
  return namespace.charAt(0) + namespace.slice(1).toLowerCase();
}

/**
 * Spaces become `_`, then the title is percent-encoded: `/Wiki/Battery_Care`. Never throws: a
 * stored title with a lone surrogate encodes it as U+FFFD.
 */
export function wikiPath(namespace: WikiNamespace, title: string, fragment?: string): string {
  const path = `/${namespaceSegment(namespace)}/${encodeUriComponentSafe(title.replace(/ /g, '_'))}`;
  return fragment ? `${path}#${encodeUriComponentSafe(fragment.replace(/ /g, '_'))}` : path;
}

/** Site path of a media-library image at one size, by its guid: `/igi/<guid>.medium`, `/igi/<guid>` (original). */
export function imagePath(guid: string, size: ImageSize = DEFAULT_IMAGE_SIZE): string {
  return size === 'original' ? `/igi/${guid}` : `/igi/${guid}.${size}`;
}

export function isImageSize(value: string): value is ImageSize {
  return (IMAGE_SIZES as readonly string[]).includes(value);
}

/** A positive integer id written in markup (`12`), or undefined. */
export function parseId(raw: string): number | undefined {
  const text = raw.trim();
  if (!/^[1-9]\d{0,14}$/.test(text)) return undefined;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** Title characters a wiki title may not contain (MediaWiki's rule, plus controls). */
const BAD_TITLE = /[<>[\]{}|\u0000-\u001f\u007f]/;

/**
 * `CATEGORY:iPhone 6#Battery` → namespace, canonical title (underscores read as spaces, runs of
 * whitespace collapsed) and fragment. Unknown prefixes stay part of a WIKI title.
 */
export function parseWikiTarget(
  raw: string,
): { namespace: WikiNamespace; title: string; fragment?: string } | undefined {
  let text = raw;
  let fragment: string | undefined;
  const hash = text.indexOf('#');
  if (hash >= 0) {
    fragment = text.slice(hash + 1).trim() || undefined;
    text = text.slice(0, hash);
  }
  let namespace: WikiNamespace = 'WIKI';
  const colon = text.indexOf(':');
  if (colon > 0) {
    const prefix = text.slice(0, colon).trim().toUpperCase();
    if ((WIKI_NAMESPACES as readonly string[]).includes(prefix)) {
      namespace = prefix as WikiNamespace;
      text = text.slice(colon + 1);
    }
  }
  const title = text.replace(/_/g, ' ').replace(/\s+/g, ' ').trim();
  if (title === '' || title.length > 255 || BAD_TITLE.test(title)) return undefined;
  if (fragment !== undefined && BAD_TITLE.test(fragment)) return undefined;
  return fragment === undefined ? { namespace, title } : { namespace, title, fragment };
}
