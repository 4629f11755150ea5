/**
 * The frame of the session pages (login, sign-out, reset) and of page errors: the content pages'
 * own layout (functions/pages/html/layout.ts: the same header, search box, stylesheet and
 * words, decision 297), one heading and the form in a narrow column. Never cached, never framed,
 * no referrer (reset tokens travel in URLs).
 */
import type { Caller } from '../../../shared/domain/caller.ts';
import { rawReply, type Reply } from '../../../shared/http/route.ts';
import { NO_STORE } from '../../../shared/http/session.ts';
import { html, type SafeHtml } from '../html/html.ts';
import { renderPage } from '../html/layout.ts';
import { pageSecurityPolicy } from '../html/page-reply.ts';

export function sessionPage(
  title: string,
  main: SafeHtml,
  options: { status?: number; cookies?: string[]; caller?: Caller | null } = {},
): Reply {
  const page = renderPage({
    title,
    caller: options.caller ?? null,
    path: '/',
    content: html`<div class="session"><h1>${title}</h1>
${main}
</div>`,
  });
  const reply = rawReply(options.status ?? 200, page, 'text/html; charset=utf-8', {
    'cache-control': NO_STORE,
    'content-security-policy': pageSecurityPolicy(),
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  });
  return options.cookies?.length ? { ...reply, cookies: options.cookies } : reply;
}
