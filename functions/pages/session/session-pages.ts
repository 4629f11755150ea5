/**
 * The session pages' HTML: the login form, the signed-in notice with its logout button, the
 * reset forms. Every form carries the CSRF token of this browser's cookie (decision 217).
 */
import type { Caller } from '../../../shared/domain/caller.ts';
import type { Reply } from '../../../shared/http/route.ts';
import { CSRF_FIELD } from '../../../shared/http/session.ts';
import { ssoLoginPath } from '../../../shared/accounts/sign-in-methods.ts';
import { html, type SafeHtml } from '../html/html.ts';
import { sessionPage } from './session-layout.ts';

export interface FormState {
  csrf: string;
  /** Set-Cookie values that go with the form (a new pre-session cookie). */
  cookies: string[];
}

const csrfField = (csrf: string) => html`<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">`;

function problemLine(problem: string | undefined): SafeHtml | '' {
  return problem ? html`<p class="problem" role="alert" id="problem">${problem}</p>` : '';
}

/** The logout button: a form POST, so no link on another site can sign anyone out. */
export function logoutForm(csrf: string): SafeHtml {
  return html`<form method="post" action="/logout">${csrfField(csrf)}<button type="submit">Sign out</button></form>`;
}

/** The link to the company's identity provider, on a site that has one (docs/identity.md). */
function companySignIn(returnTo: string) {
  const path = ssoLoginPath(returnTo);
  return path ? html`\n<p><a href="${path}">Sign in with your company account</a></p>` : '';
}

export function loginPage(
  form: FormState,
  input: {
    returnTo: string;
    email?: string;
    problem?: string;
    notice?: string;
    status?: number;
    headers?: Record<string, string>;
  },
): Reply {
  const notice = input.notice ? html`<p class="notice" role="status">${input.notice}</p>` : '';
  const describedBy = input.problem ? html` aria-describedby="problem"` : '';
  const main = html`${problemLine(input.problem)}${notice}
<form method="post" action="/login">
${csrfField(form.csrf)}<input type="hidden" name="returnTo" value="${input.returnTo}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required
 value="${input.email ?? ''}"${describedBy}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Log in</button>
</form>
<p><a href="/reset_password">Forgot your password?</a></p>${companySignIn(input.returnTo)}`;
  const reply = sessionPage('Log in', main, { status: input.status, cookies: form.cookies });
  return { ...reply, headers: { ...reply.headers, ...input.headers } };
}

export function signedInPage(form: FormState, caller: Caller, returnTo: string, title = 'Signed in'): Reply {
  const main = html`<p>You are signed in as <strong>${caller.username}</strong>.</p>
<p><a href="${returnTo}">Continue</a></p>
${logoutForm(form.csrf)}`;
  return sessionPage(title, main, { cookies: form.cookies, caller });
}

export function newPasswordPage(form: FormState, token: string, problem?: string, status?: number): Reply {
  const main = html`${problemLine(problem)}
<form method="post" action="/reset_password">
${csrfField(form.csrf)}<input type="hidden" name="token" value="${token}">
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required>
<label for="confirm">The same password again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="8" required>
<button type="submit">Set the password</button>
</form>`;
  return sessionPage('Choose a password', main, { status, cookies: form.cookies });
}

export function requestLinkPage(form: FormState, problem?: string, status?: number): Reply {
  const main = html`${problemLine(problem)}<p>We will mail you a link to choose a new password.</p>
<form method="post" action="/reset_password/request">
${csrfField(form.csrf)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" required>
<button type="submit">Send the link</button>
</form>`;
  return sessionPage('Reset your password', main, { status, cookies: form.cookies });
}

export function linkSentPage(message: string): Reply {
  return sessionPage('Check your mail', html`<p role="status">${message}</p><p><a href="/login">Log in</a></p>`);
}
