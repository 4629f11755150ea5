/**
 * Signing in and out in a browser, and the password-reset (and invitation) link's page
 * (docs/sessions.md): the session cookie is a token of the token store (decision 216); every
 * form POST is checked against this browser's CSRF token by the router (decision 217).
 */
import * as z from 'zod/mini';
import { completePasswordReset, requestPasswordReset } from '../../shared/accounts/password-reset.ts';
import { verifyCredentials } from '../../shared/accounts/credential-check.ts';
import { afterLogoutPath } from '../../shared/accounts/sign-in-methods.ts';
import { TooManyRequestsError, ValidationError } from '../../shared/domain/errors.ts';
import { passwordSchema } from '../../shared/domain/user-rules.ts';
import { deleteToken } from '../../shared/db/entities/token.ts';
import { reply, route } from '../../shared/http/route.ts';
import {
  endedSessionCookie,
  formCsrf,
  LOGIN_PATH,
  NO_STORE,
  safeReturnTo,
  startSession,
} from '../../shared/http/session.ts';
import {
  linkSentPage,
  loginPage,
  newPasswordPage,
  requestLinkPage,
  signedInPage,
  type FormState,
} from './session/session-pages.ts';

const formState = (headers: Record<string, string>): FormState => {
  const { token, cookies } = formCsrf(headers);
  return { csrf: token, cookies };
};

// Bounded like the API's login; the router has checked `csrf` before these are read.
const text = (max: number) => z._default(z.string().check(z.maxLength(max)), '');
const csrf = z.string();
const CSRF_EXAMPLE = '5d41402abc4b2a76b9719d911017c592ae9f1e0c8a6e6d2b7c4f3e2a1b0c9d8e';
const RESET_TOKEN_EXAMPLE = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

const LINK_SENT = 'If an account has that address, a link to choose a new password is on its way to it.';

/** A password the account rules refuse, said as a sentence; undefined when it is acceptable. */
function passwordProblem(password: string, confirm: string): string | undefined {
  const parsed = passwordSchema.safeParse(password);
  if (!parsed.success) return `The password ${parsed.error.issues[0]!.message}.`;
  if (password !== confirm) return 'The two passwords differ.';
  return undefined;
}

export const sessionRoutes = [
  route({
    method: 'GET',
    path: '/login',
    site: true,
    page: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary: 'The login page: email and password, then back to `returnTo` (a path of this site)',
    query: z.object({ returnTo: z.optional(z.string()), changed: z.optional(z.string()) }),
    queryExample: { returnTo: '/Guide/Replace+the+print+nozzle/12' },
    handler: async ({ query, caller, headers }) => {
      const returnTo = safeReturnTo(query.returnTo);
      if (caller) return signedInPage(formState(headers), caller, returnTo);
      const notice = query.changed ? 'Your password is set. Sign in with it.' : undefined;
      return loginPage(formState(headers), { returnTo, notice });
    },
  }),
  route({
    method: 'POST',
    path: '/login',
    site: true,
    page: true,
    form: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary: 'Sign in with email and password: sets the session cookie and goes back to `returnTo`',
    body: z.object({ email: text(254), password: text(512), returnTo: z.optional(z.string()), csrf }),
    example: { email: 'admin@example.com', password: 'stepwise-admin', returnTo: '/', csrf: CSRF_EXAMPLE },
    handler: async ({ body, headers, sourceIp }) => {
      const returnTo = safeReturnTo(body.returnTo);
      const again = (problem: string, status: number, extra?: Record<string, string>) =>
        loginPage(formState(headers), { returnTo, email: body.email, problem, status, headers: extra });
      if (!body.email || !body.password) return again('Enter your email and your password.', 422);
      try {
        const user = await verifyCredentials({ login: body.email, password: body.password, sourceIp });
        return await startSession(user.userid, returnTo);
      } catch (error) {
        if (error instanceof ValidationError) return again('Invalid email or password.', 401);
        if (error instanceof TooManyRequestsError)
          return again(`Too many attempts. Try again in ${error.retryAfterSeconds} seconds.`, 429, {
            'retry-after': String(error.retryAfterSeconds),
          });
        throw error;
      }
    },
  }),
  route({
    method: 'GET',
    path: '/logout',
    site: true,
    page: true,
    auth: 'user',
    summary: 'The sign-out page a link can open: who is signed in, and the sign-out button (a form POST)',
    handler: async ({ caller, headers }) => signedInPage(formState(headers), caller, '/', 'Sign out'),
  }),
  route({
    method: 'POST',
    path: '/logout',
    site: true,
    page: true,
    form: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary: "Sign out: ends the session's token (everywhere it is used) and clears the cookie",
    body: z.object({ csrf }),
    example: { csrf: CSRF_EXAMPLE },
    handler: async ({ auth }) => {
      // Only a cookie's session: an API client ends its token with DELETE /user/token.
      if (auth.sessionToken && auth.tokenHash) await deleteToken(auth.tokenHash);
      return {
        ...reply(303, undefined, { location: afterLogoutPath(), 'cache-control': NO_STORE }),
        cookies: [endedSessionCookie()],
      };
    },
  }),
  route({
    method: 'GET',
    path: '/reset_password',
    site: true,
    page: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary: "The reset and invitation mails' link: a new-password form (`?token=`), else a form to ask for a link",
    query: z.object({ token: z.optional(z.string().check(z.maxLength(256))) }),
    queryExample: { token: RESET_TOKEN_EXAMPLE },
    handler: async ({ query, headers }) =>
      query.token ? newPasswordPage(formState(headers), query.token) : requestLinkPage(formState(headers)),
  }),
  route({
    method: 'POST',
    path: '/reset_password',
    site: true,
    page: true,
    form: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary: 'Set the password a reset or invitation link was sent for; every session of the account ends',
    body: z.object({ token: text(256), password: text(512), confirm: text(512), csrf }),
    example: {
      token: RESET_TOKEN_EXAMPLE,
      password: 'a-new-password-7',
      confirm: 'a-new-password-7',
      csrf: CSRF_EXAMPLE,
    },
    handler: async ({ body, headers }) => {
      const problem = passwordProblem(body.password, body.confirm);
      if (problem) return newPasswordPage(formState(headers), body.token, problem, 422);
      try {
        await completePasswordReset(body.token, body.password);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        return requestLinkPage(formState(headers), `${error.message}. Ask for a new one below.`, 422);
      }
      return reply(303, undefined, { location: `${LOGIN_PATH}?changed=1`, 'cache-control': NO_STORE });
    },
  }),
  route({
    method: 'POST',
    path: '/reset_password/request',
    site: true,
    page: true,
    form: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary: 'Mail a reset link to an address, if an account has it (the page says the same either way)',
    body: z.object({ email: text(254), csrf }),
    example: { email: 'someone@example.com', csrf: CSRF_EXAMPLE },
    handler: async ({ body, headers }) => {
      if (!body.email.trim()) return requestLinkPage(formState(headers), 'Enter your email address.', 422);
      await requestPasswordReset(body.email);
      return linkSentPage(LINK_SENT);
    },
  }),
];
