/**
 * The frame of the session pages (login, reset): landmarks, the site's name, one heading. One
 * small function on purpose: when the content pages' layout (functions/pages/html/layout.ts)
 * is there, this is the one place to swap for it.
 */
import { config } from '../../../shared/config.ts';
import { rawReply, type Reply } from '../../../shared/http/route.ts';
import { NO_STORE } from '../../../shared/http/session.ts';
import { html, type SafeHtml } from '../html/html.ts';

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#f6f6f4}
header{background:#1f3a5f;padding:.75rem 1.5rem}header a{color:#fff;font-weight:600;text-decoration:none}
main{max-width:26rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:6px}
label{display:block;margin-top:1rem;font-weight:600}input{width:100%;box-sizing:border-box;padding:.5rem;font:inherit}
button{margin-top:1.25rem;padding:.5rem 1.25rem;font:inherit;background:#1f3a5f;color:#fff;border:0;border-radius:4px}
button:focus,a:focus,input:focus{outline:3px solid #e0a100;outline-offset:2px}
.problem{color:#8a1c1c;font-weight:600}.notice{color:#1d5b2c}`;

/** What the session pages answer with besides the HTML: never kept, never framed, no referrer (tokens in URLs). */
const PAGE_HEADERS = {
  'cache-control': NO_STORE,
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; " +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

export function sessionPage(
  title: string,
  main: SafeHtml,
  options: { status?: number; cookies?: string[] } = {},
): Reply {
  const siteName = config().STEPWISE_SITE_NAME;
  const page = html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${siteName}</title><style>${STYLE}</style></head>
<body>
<header><a href="/">${siteName}</a></header>
<main id="main"><h1>${title}</h1>
${main}
</main>
</body>
</html>`;
  const reply = rawReply(options.status ?? 200, page.text, 'text/html; charset=utf-8', PAGE_HEADERS);
  return options.cookies?.length ? { ...reply, cookies: options.cookies } : reply;
}
