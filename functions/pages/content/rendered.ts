/**
 * What pages show of stored text: rendered wiki HTML goes through the sanitizer again at render
 * time (a rendered field kept in the table, or brought by an import, is never trusted as it is);
 * URLs typed by people pass the same check the wiki renderer applies; dates print as days.
 */
import { sanitizeHtml } from '../../../shared/domain/wiki-syntax/index.ts';
import { safeAttributeUrl } from '../../../shared/domain/wiki-syntax/urls.ts';
import type { ImageView } from '../../../shared/views/common-schemas.ts';
import { html, trustedHtml, type SafeHtml } from '../html/html.ts';

/** Rendered wiki HTML, as the sanitizer lets it through. */
export function sanitized(rendered: string): SafeHtml {
  return trustedHtml(sanitizeHtml(rendered));
}

/** An http(s) or mailto URL (site paths made absolute), or undefined for anything else. */
export function linkUrl(raw: string | null | undefined, siteUrl: string): string | undefined {
  return raw ? safeAttributeUrl(raw, 'link', siteUrl) : undefined;
}

/** A link when the URL passes, the text alone otherwise. */
export function linkOrText(text: string, raw: string | null | undefined, siteUrl: string): SafeHtml {
  const href = linkUrl(raw, siteUrl);
  return href ? html`<a href="${href}">${text}</a>` : html`${text}`;
}

/** `2026-11-26` (UTC) in a <time> element. */
export function dateText(seconds: number | null | undefined): SafeHtml {
  if (!seconds) return html``;
  const iso = new Date(seconds * 1000).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 10)}</time>`;
}

/** The Image object's URL at a size that fits a column, falling back to what exists. */
export function imageSource(image: ImageView | null | undefined, preferred: 'medium' | 'standard' | 'thumbnail') {
  if (!image) return undefined;
  const order = [preferred, 'medium', 'standard', 'large', 'thumbnail', 'original'];
  for (const size of order) {
    const url = image[size];
    if (typeof url === 'string') return url;
  }
  return undefined;
}

/** A titled part of a page: a <section> named by its <h2> (a landmark a screen reader lists). */
export function section(id: string, heading: string, body: SafeHtml | SafeHtml[]): SafeHtml {
  return html`<section aria-labelledby="h-${id}"><h2 id="h-${id}">${heading}</h2>${body}</section>`;
}
