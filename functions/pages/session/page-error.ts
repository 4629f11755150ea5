/**
 * A page route's error as a page (the group's `pageError`, shared/http/router.ts): the API's
 * status and message, in the session pages' frame until the content layout takes over.
 */
import type { Reply } from '../../../shared/http/route.ts';
import { html } from '../html/html.ts';
import { sessionPage } from './session-layout.ts';

const TITLES: Record<number, string> = {
  400: 'This request cannot be read',
  401: 'Sign in first',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Changed in the meantime',
  422: 'Check what you sent',
  429: 'Too many attempts',
};

export function pageError(status: number, message: string): Reply {
  const title = TITLES[status] ?? 'Something went wrong';
  return sessionPage(title, html`<p>${message}</p><p><a href="/">Go to the start page</a></p>`, { status });
}
