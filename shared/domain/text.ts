/** Small text helpers shared by views (HTML escaping lives in wiki-syntax/escape.ts). */

/** URL path segment for a display name: "Jane Doe" -> "Jane+Doe" (the real service's style). */
export function urlSlug(text: string): string {
  return encodeURIComponent(text.trim().replace(/\s+/g, '+')).replace(/%2B/g, '+');
}
