/** Small text helpers shared by views (HTML escaping lives in wiki-syntax/escape.ts). */

/** ES2024 string methods (Node 20+); the project's TypeScript lib is ES2023. */
interface Es2024String {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** True when the text has no lone UTF-16 surrogate (it can be encoded as UTF-8 losslessly). */
export function isWellFormedText(text: string): boolean {
  return (text as unknown as Es2024String).isWellFormed();
}

/** The text with every lone surrogate replaced by U+FFFD. */
export function toWellFormedText(text: string): string {
  return (text as unknown as Es2024String).toWellFormed();
}

/**
 * encodeURIComponent that never throws: a lone surrogate (in a record stored before the API
 * refused them) becomes U+FFFD instead of a URIError that would fail every read of the record.
 */
export function encodeUriComponentSafe(text: string): string {
  return encodeURIComponent(toWellFormedText(text));
}

/**
 * RFC 3986 escaping as AWS signs and S3 reports it: encodeURIComponent plus `!'()*`, which
 * encodeURIComponent leaves alone. Never throws (lone surrogates as in encodeUriComponentSafe).
 */
export function encodeRfc3986(text: string): string {
  return encodeUriComponentSafe(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** URL path segment for a display name: "Jane Doe" -> "Jane+Doe" (the real service's style). */
export function urlSlug(text: string): string {
  return encodeUriComponentSafe(text.trim().replace(/\s+/g, '+')).replace(/%2B/g, '+');
}
