/** Small text helpers shared by views. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** URL path segment for a display name: "Jane Doe" -> "Jane+Doe" (the real service's style). */
export function urlSlug(text: string): string {
  return encodeURIComponent(text.trim().replace(/\s+/g, '+')).replace(/%2B/g, '+');
}
