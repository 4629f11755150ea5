/**
 * How a page answers: HTML with cache headers that fit who may see it, and the API's access
 * errors turned into pages. An anonymous reader of what needs a sign-in is sent to the login page
 * and back; a signed-in reader without access gets the same 404 page as for something that does
 * not exist (a page never tells what the reader could not GET).
 */
import { config, siteUrl } from '../../../shared/config.ts';
import type { Caller } from '../../../shared/domain/caller.ts';
import { ForbiddenError, NotFoundError, UnauthenticatedError } from '../../../shared/domain/errors.ts';
import { rawReply, reply, type Reply } from '../../../shared/http/route.ts';
import { uploadOrigins } from '../../../shared/storage/objects.ts';
import { html } from './html.ts';
import { loginHref, renderPage, STYLE_HASH, SUGGEST_SCRIPT_HASH, type PageFrame } from './layout.ts';

/** Public pages may be cached by browsers and CloudFront for this long. */
export const PUBLIC_PAGE_MAX_AGE_SECONDS = 300;

/**
 * Cacheable only when nothing in it depends on the reader: an anonymous reader of a public
 * site. Anything a signed-in reader sees (their name, private guides) stays out of every cache.
 */
export function pageCacheControl(caller: Caller | null): string {
  return caller === null && !config().STEPWISE_PRIVATE_SITE
    ? `public, max-age=${PUBLIC_PAGE_MAX_AGE_SECONDS}`
    : 'private, no-store';
}

export function pageHeaders(caller: Caller | null): Record<string, string> {
  return {
    'cache-control': pageCacheControl(caller),
    // The answer depends on who asks: a shared cache keys on these (or, private, does not keep it).
    vary: 'Authorization, Cookie',
    'x-content-type-options': 'nosniff',
  };
}

/**
 * Defense in depth behind the escaping: the one script (the search box's suggestions, which may
 * ask the site for them) and the one stylesheet are allowed by their hashes, nothing else runs;
 * images come from the site (the /igi/ URLs), and nothing may frame a page.
 * Videos play from presigned URLs of the media bucket, whose host differs by deployment.
 */
export function pageSecurityPolicy(client = false): string {
  return [
    "default-src 'none'",
    // The search box's suggestion script is allowed by its hash on every page. A page with the
    // client (decision 294) also loads its script and stylesheet from this site and uploads to the
    // media bucket. Still no other inline script.
    `script-src ${client ? "'self' " : ''}${SUGGEST_SCRIPT_HASH}`,
    `connect-src 'self'${client ? ` ${uploadOrigins(config().MEDIA_BUCKET).join(' ')}` : ''}`,
    `style-src ${client ? "'self' " : ''}${STYLE_HASH}`,
    `img-src 'self' ${new URL(siteUrl()).origin}`,
    'media-src *',
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export function htmlReply(status: number, frame: PageFrame): Reply {
  return rawReply(status, renderPage(frame), 'text/html; charset=utf-8', {
    ...pageHeaders(frame.caller),
    'content-security-policy': pageSecurityPolicy(frame.client),
  });
}

export function redirectReply(status: 301 | 302, location: string, caller: Caller | null): Reply {
  return reply(status, undefined, { location, ...pageHeaders(caller) });
}

function notFoundPage(caller: Caller | null, path: string): Reply {
  return htmlReply(404, {
    title: 'Page not found',
    caller,
    path,
    content: html`<h1>Page not found</h1>
<p>There is no page at this address, or you may not see it.</p>`,
  });
}

/**
 * Runs a page's work and answers what the API would refuse as a page: 302 to the login page
 * for an anonymous reader (401), the 404 page otherwise (403, 404).
 */
export async function asPage(caller: Caller | null, path: string, render: () => Promise<Reply>): Promise<Reply> {
  try {
    return await render();
  } catch (error) {
    if (error instanceof UnauthenticatedError || (error instanceof ForbiddenError && caller === null))
      return redirectReply(302, loginHref(path), caller);
    if (error instanceof ForbiddenError || error instanceof NotFoundError) return notFoundPage(caller, path);
    throw error;
  }
}
