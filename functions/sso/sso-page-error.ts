/**
 * A sign-in that fails shows a short page, not JSON (the browser is the client here): the API's
 * status and message, and a way back to the login page.
 */
import type { Reply } from '../../shared/http/route.ts';
import { NO_STORE } from '../../shared/http/session.ts';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export function ssoPageError(status: number, message: string): Reply {
  const body =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in failed</title></head>' +
    `<body><h1>Sign-in failed</h1><p>${escapeHtml(message)}</p>` +
    '<p><a href="/login">Back to sign in</a></p></body></html>';
  return {
    kind: 'reply',
    status,
    body,
    raw: true,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': NO_STORE,
      'content-security-policy': "default-src 'none'; form-action 'self'; frame-ancestors 'none'",
      'referrer-policy': 'no-referrer',
    },
  };
}
