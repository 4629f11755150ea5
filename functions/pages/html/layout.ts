/**
 * The frame of every page: one document with landmarks (banner, navigation, main, contentinfo),
 * a skip link, the site's name, the signed-in user or a login link, the inline stylesheet
 * (screen and print) and the page's own content. Pages render their content with `html` and
 * hand it here; nothing stored reaches the document except through `html`'s escaping.
 */
import { createHash } from 'node:crypto';
import { config } from '../../../shared/config.ts';
import type { Caller } from '../../../shared/domain/caller.ts';
import { pageClientFiles } from '../client-files.ts';
import { html, SafeHtml } from './html.ts';
import { PAGE_STYLES } from './page-styles.ts';

/** The stylesheet: a constant of the code, no stored text in it (escaping would break its quotes). */
const STYLE = new SafeHtml(`<style>${PAGE_STYLES}</style>`);

/** The stylesheet's hash, the one style the pages' Content-Security-Policy allows. */
export const STYLE_HASH = `'sha256-${createHash('sha256').update(PAGE_STYLES).digest('base64')}'`;

/**
 * The search box's suggestions (decision 298): as the reader types three characters or more, the
 * titles of the best matches they may read fill the box's <datalist>. A few hundred bytes, inline
 * and allowed by its hash; without it the box is a plain form that opens the results page.
 */
export const SUGGEST_SCRIPT = `(() => {
  const input = document.getElementById('site-search-query');
  const list = document.getElementById('site-search-suggestions');
  if (!input || !list) return;
  let timer;
  let asked = '';
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const text = input.value.trim();
      if (text.length < 3 || text === asked) return;
      asked = text;
      try {
        const answer = await fetch('/Search/suggest?query=' + encodeURIComponent(text), { credentials: 'same-origin' });
        if (!answer.ok) return;
        const { suggestions } = await answer.json();
        const option = (entry) => Object.assign(document.createElement('option'), { value: entry.title });
        list.replaceChildren(...suggestions.map(option));
      } catch {}
    }, 150);
  });
})();`;
const SCRIPT = new SafeHtml(`<script>${SUGGEST_SCRIPT}</script>`);

/** The suggestion script's hash, the one script the pages' Content-Security-Policy allows. */
export const SUGGEST_SCRIPT_HASH = `'sha256-${createHash('sha256').update(SUGGEST_SCRIPT).digest('base64')}'`;

export interface PageFrame {
  /** The document title (the site's name is added). */
  title: string;
  /** The page's own content, inside <main>. */
  content: SafeHtml;
  /** Who is reading: their name and a logout, or a login link back to `path`. */
  caller: Caller | null;
  /** The page's own path (and query), where the login link brings the reader back. */
  path: string;
  /** The language of the content (BCP 47); the site's first language by default. */
  lang?: string;
  /** What the header's search box shows (the results page's words). */
  query?: string;
  /** Load the pages' client script and stylesheet (the editors only; decision 294). */
  client?: boolean;
}

/** The client's stylesheet and deferred script, by their content-named paths. */
function clientTags(): SafeHtml {
  const { script, style } = pageClientFiles();
  return html`<link rel="stylesheet" href="${style.path}">
<script src="${script.path}" defer></script>`;
}

/**
 * The login link back to this page: a same-site relative path only, the rule the login page
 * applies to `returnTo` as well.
 */
export function loginHref(path: string): string {
  return `/login?returnTo=${encodeURIComponent(path.startsWith('/') && !path.startsWith('//') ? path : '/')}`;
}

/**
 * The slot at the right of the header: the signed-in user and the way out (the sign-out page,
 * whose form carries the CSRF token: docs/sessions.md), or the way in.
 */
export function accountSlot(caller: Caller | null, path: string): SafeHtml {
  if (!caller) return html`<a href="${loginHref(path)}">Log in</a>`;
  return html`<span>Signed in as <strong>${caller.username}</strong></span> <a href="/logout">Sign out</a>`;
}

export function renderPage(frame: PageFrame): string {
  const site = config().STEPWISE_SITE_NAME;
  const lang = frame.lang ?? config().STEPWISE_LANGUAGES[0] ?? 'en';
  return html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} – ${site}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
${STYLE}
${frame.client ? clientTags() : ''}
</head>
<body>
<a class="skip" href="#content">Skip to content</a>
<header class="site-header">
<a class="site-name" href="/">${site}</a>
<form class="site-search" action="/Search" method="get" role="search" aria-label="Site">
<input id="site-search-query" type="search" name="query" value="${frame.query ?? ''}" maxlength="200" \
list="site-search-suggestions" autocomplete="off" aria-label="Search guides and pages" placeholder="Search">
<datalist id="site-search-suggestions"></datalist><button type="submit">Search</button>
</form>
<nav aria-label="Account"><ul>${frame.caller ? html`<li><a href="/Manage">My training</a></li>` : ''}<li>${accountSlot(
    frame.caller,
    frame.path,
  )}</li></ul></nav>
</header>
<main id="content" tabindex="-1">
${frame.content}
</main>
<footer class="site-footer"><p>${site} · <a href="/api/2.0/doc">API reference</a></p></footer>
${SCRIPT}
</body>
</html>
`.text;
}
