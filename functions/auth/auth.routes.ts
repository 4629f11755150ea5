/** Authentication: tokens, registration, impersonation, password reset. */
import * as z from 'zod/mini';
import { defineGroup, reply, route } from '../../shared/http/route.ts';
import { passwordSchema } from '../../shared/domain/user-rules.ts';
import { messageResponse } from '../../shared/http/schemas.ts';
import { endedLoginSessionCookie, loginSessionCookie } from '../../shared/http/session.ts';
import { userSelfWithTokenSchema } from '../../shared/views/user-views.ts';
import { registerBody } from './auth.schemas.ts';
import * as auth from './auth.service.ts';

// Bounded like every stored value: a longer email or password names no account (422, not a lookup).
const loginBody = z.object({
  email: z.string().check(z.minLength(1), z.maxLength(254)),
  password: z.string().check(z.minLength(1), z.maxLength(512)),
});

const RESET_SENT = 'If an account exists for that address, a password reset link has been sent to it';

export const authGroup = defineGroup({
  name: 'auth',
  access: { table: 'readwrite', sendMail: true },
  routes: [
    route({
      method: 'POST',
      path: '/user/token',
      mintsCredentials: true,
      auth: 'public',
      openOnPrivateSite: true,
      summary: 'Log in: create an authorization token from credentials',
      description:
        'Answers 201 with the user and `authToken`. Bad credentials (or an unknown account): 401 "Invalid ' +
        'login". Throttled (docs/configuration.md, Login throttling): 429 with Retry-After once the client ' +
        "address has too many failures, or while the account's growing delay runs and the address has " +
        'failures of its own; the owner from another address is not held back. The answer also sets the ' +
        'cookie `session_<siteid>` (HttpOnly, SameSite=Lax) carrying the token: site pages opened with it ' +
        '(GET) are signed in, as on the real service (docs/sessions.md).',
      status: 201,
      body: loginBody,
      example: { email: 'admin@example.com', password: 'stepwise-admin' },
      response: userSelfWithTokenSchema,
      responseExample: {
        userid: 1042,
        username: 'Dana Fisher',
        unique_username: 'dfisher',
        join_date: 1761984000,
        image: {
          id: -32,
          guid: 'default_avatar_placeholder_guid',
          thumbnail: 'https://docs.example.com/assets/default-avatar.thumbnail',
          original: 'https://docs.example.com/assets/default-avatar',
        },
        reputation: 1,
        url: '/User/1042/dfisher',
        teams: [17],
        privileges: ['Author'],
        location: 'Leeds',
        summary: null,
        about_raw: false,
        about_rendered: false,
        certification_count: 0,
        badge_counts: { bronze: 0, silver: 0, gold: 0, total: 0 },
        email: 'dana.fisher@example.com',
        sso_userid: null,
        employee_id: 'E-20431',
        links: { manage: '/Manage/User/1042' },
        latitude: null,
        longitude: null,
        authToken: '3f9c2a7e5b1d4c6f8a0e9b7d5c3a1f2e',
      },
      handler: async ({ body, headers, sourceIp }) => {
        const user = await auth.login({
          email: body.email,
          password: body.password,
          appId: headers['x-app-id'],
          sourceIp,
        });
        // The real service's login also sets its session cookie: pages opened with it are signed in (decision 279).
        return { ...reply(201, user), cookies: [loginSessionCookie(user.authToken)] };
      },
    }),
    route({
      method: 'DELETE',
      path: '/user/token',
      auth: 'user',
      summary: 'Log out: delete the token of this request',
      status: 204,
      handler: async ({ auth: context }) => {
        await auth.logout(context);
        return { ...reply(204), cookies: [endedLoginSessionCookie()] };
      },
    }),
    route({
      method: 'POST',
      path: '/user/token/impersonate',
      mintsCredentials: true,
      auth: 'admin',
      summary: 'Create a token for another user without a password (Admins only; audited)',
      description:
        'The token and its audit record (`user.impersonated`, in the chains of both users) are written in ' +
        'one transaction. Your own userid: 422 on `userid`.',
      status: 201,
      body: z.object({ userid: z.int().check(z.positive()) }),
      example: { userid: 1 },
      response: userSelfWithTokenSchema,
      handler: ({ auth: context, body }) => auth.impersonate(context, body.userid),
    }),
    route({
      method: 'POST',
      path: '/users',
      mintsCredentials: true,
      auth: 'custom',
      // Open so registration can run its own rule: anonymous callers pass only while public
      // registration is on; that is decided before the body is validated.
      openOnPrivateSite: true,
      authorize: ({ auth: context }) => auth.authorizeRegistration(context),
      summary: 'Register a user account',
      description:
        'With public registration off, only an Admin may call it (401/403). With it on, an accepted ' +
        'X-App-Id is required when the site lists app ids. Answers 201 with the user and `authToken`.',
      status: 201,
      body: registerBody,
      example: {
        email: 'new.user@example.com',
        username: 'New User',
        password: 'correct-horse-9',
        unique_username: 'new_user',
      },
      response: userSelfWithTokenSchema,
      handler: ({ auth: context, body }) => auth.register(context, body),
    }),
    route({
      method: 'POST',
      path: '/users/reset_password',
      mintsCredentials: true,
      auth: 'public',
      openOnPrivateSite: true,
      summary: 'Send a password reset link to an address, if an account has it',
      description: 'Answers the same whether or not the address has an account.',
      body: z.object({ email: z.string().check(z.minLength(1), z.maxLength(254)) }),
      response: messageResponse,
      example: { email: 'someone@example.com' },
      handler: async ({ body }) => {
        await auth.requestPasswordReset(body.email);
        return { message: RESET_SENT };
      },
    }),
    route({
      method: 'POST',
      path: '/users/reset_password/complete',
      mintsCredentials: true,
      auth: 'public',
      openOnPrivateSite: true,
      summary: 'Set a new password with the token from a reset link (beyond the spec)',
      description: 'The token works once. Every existing token of the account is revoked.',
      body: z.object({ token: z.string().check(z.minLength(1)), password: passwordSchema }),
      response: messageResponse,
      example: { token: '<token from the mail>', password: 'a-new-password-7' },
      extensions: { 'x-beyond-spec': true },
      handler: async ({ body }) => {
        await auth.completePasswordReset(body.token, body.password);
        return { message: 'Password changed' };
      },
    }),
  ],
});
