/**
 * Company sign-in (docs/identity.md, decisions 231-234): the Admin's identity providers under
 * /admin/identity_providers, and the browser's sign-in paths at the site root: Dozuki's signed
 * remote login and its redirects to the customer's login page, OIDC and SAML.
 */
import { lazyService } from '../../shared/http/lazy-service.ts';
import * as z from 'zod/mini';
import { defineGroup, rawReply, type Reply, route } from '../../shared/http/route.ts';
import { loginRedirect, NO_STORE, startSession } from '../../shared/http/session.ts';
import { queryInt } from '../../shared/http/query.ts';
import { identityProviderSchema } from '../../shared/views/identity-provider-views.ts';
import { createIdentityProviderBody, STEP_UP_TICKET_SECONDS, updateIdentityProviderBody } from './sso.schemas.ts';
import type * as ProvidersService from './identity-providers.service.ts';
import type * as RemoteLoginService from './remote-login.service.ts';
import { ssoPageError } from './sso-page-error.ts';
import type * as CompanyLoginService from './company-login.service.ts';
import type * as SignInService from './sign-in.service.ts';
import { endedStateCookie } from './sso-login-state.ts';
import type { ProviderRedirect, SignInEnd } from './sso-flow.ts';
import type * as StepUpService from './step-up.service.ts';

const providers = lazyService<typeof ProvidersService>(() => import('./identity-providers.service.ts'));
const { customerLoginUrl, remoteLogin } = lazyService<typeof RemoteLoginService>(
  () => import('./remote-login.service.ts'),
);
const { startCompanyLogin } = lazyService<typeof CompanyLoginService>(() => import('./company-login.service.ts'));
const { finishCompanySignIn } = lazyService<typeof SignInService>(() => import('./sign-in.service.ts'));
const { issueStepUpTicket, startStepUp, stepUpStatus } = lazyService<typeof StepUpService>(
  () => import('./step-up.service.ts'),
);

/** To the identity provider, with the login state cookie. */
function toProvider(redirect: ProviderRedirect): Reply {
  return {
    kind: 'reply',
    status: 302,
    headers: { location: redirect.location, 'cache-control': NO_STORE },
    cookies: [redirect.stateCookie],
  };
}

function redirectTo(location: string): Reply {
  return { kind: 'reply', status: 302, headers: { location, 'cache-control': NO_STORE } };
}

/** The end of a company sign-in: the session (or back to the page), the login state cookie ended. */
async function signInEnded(end: SignInEnd): Promise<Reply> {
  if (end.kind === 'back')
    return {
      kind: 'reply',
      status: 303,
      headers: { location: end.location, 'cache-control': NO_STORE },
      cookies: [endedStateCookie()],
    };
  const session = await startSession(end.userid, end.returnTo);
  return { ...session, cookies: [...(session.cookies ?? []), endedStateCookie()] };
}

/** The protocol modules, loaded by the first request that needs one (with openid-client or node-saml). */
const oidcModule = () => import('./oidc.service.ts');
const samlModule = () => import('./saml.service.ts');
/** Over-the-shoulder signatures and the training they reach: loaded by the first sign_for request (decision 323). */
const signForModule = () => import('./sign-for.service.ts');

const providerParams = z.object({ providerid: z.string().check(z.regex(/^[a-z0-9][a-z0-9_-]{0,39}$/)) });
const BEYOND_SPEC = { 'x-beyond-spec': true };

const adminRoutes = [
  route({
    method: 'POST',
    path: '/admin/identity_providers',
    auth: 'admin',
    status: 201,
    summary: 'Add an identity provider (OIDC, SAML or Dozuki remote login); secrets are write-only',
    description:
      'An OIDC issuer on a private, loopback or link-local address (or a name resolving to one) is 422 ' +
      '`url_not_allowed` on `issuer`: Stepwise fetches it (decision 251).',
    body: createIdentityProviderBody,
    response: identityProviderSchema,
    example: {
      providerid: 'okta',
      kind: 'oidc',
      name: 'Okta',
      issuer: 'https://example.okta.com',
      client_id: '0oa1b2c3d4',
      client_secret: 'a-client-secret-from-okta',
      jit: true,
      role_claim: 'groups',
      role_map: { 'stepwise-admins': 'Admin' },
    },
    extensions: BEYOND_SPEC,
    handler: ({ caller, body }) => providers.create(caller, body),
  }),
  route({
    method: 'GET',
    path: '/admin/identity_providers',
    auth: 'admin',
    summary: 'The identity providers of the site: {"identity_providers": [...]} (never their secrets)',
    response: z.object({ identity_providers: z.array(identityProviderSchema) }),
    extensions: BEYOND_SPEC,
    handler: () => providers.list(),
  }),
  route({
    method: 'GET',
    path: '/admin/identity_providers/{providerid}',
    auth: 'admin',
    summary: 'One identity provider (without its secrets)',
    params: providerParams,
    response: identityProviderSchema,
    extensions: BEYOND_SPEC,
    handler: ({ params }) => providers.get(params.providerid),
  }),
  route({
    method: 'PATCH',
    path: '/admin/identity_providers/{providerid}',
    auth: 'admin',
    summary: 'Change an identity provider: the fields sent replace theirs; a secret sent replaces the stored one',
    description: 'A changed `issuer` is vetted as at creation (422 `url_not_allowed` on an internal address).',
    params: providerParams,
    body: updateIdentityProviderBody,
    response: identityProviderSchema,
    example: { enabled: false },
    extensions: BEYOND_SPEC,
    handler: ({ params, body }) => providers.update(params.providerid, body),
  }),
  route({
    method: 'DELETE',
    path: '/admin/identity_providers/{providerid}',
    auth: 'admin',
    status: 204,
    summary: 'Remove an identity provider (accounts keep their sso_userid)',
    params: providerParams,
    extensions: BEYOND_SPEC,
    handler: async ({ params }) => {
      await providers.remove(params.providerid);
    },
  }),
];

const signedQuery = z.object({
  userid: z.optional(z.string()),
  email: z.optional(z.string()),
  name: z.optional(z.string()),
  t: z.optional(z.string()),
  hash: z.optional(z.string()),
  returnTo: z.optional(z.string()),
});

const remoteLoginRoutes = [
  route({
    method: 'GET',
    path: '/Guide/User/remote_login',
    site: true,
    page: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary:
      'Dozuki remote login: hash = hex(sha1(query before "&hash=" + SSO secret)), `t` within 5 minutes, ' +
      'each link once; starts the session',
    query: signedQuery,
    queryExample: {
      userid: '2345',
      email: 'george@example.com',
      name: 'George',
      t: '1357604345',
      hash: '2fd4e1c67a2d28fced849ee1bb76e7391b93eb12',
    },
    handler: async ({ rawQueryString }) => {
      const signedIn = await remoteLogin(rawQueryString);
      return startSession(signedIn.userid, signedIn.returnTo);
    },
  }),
  route({
    method: 'GET',
    path: '/Guide/User/login',
    site: true,
    page: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary: 'Sign in through the customer’s site: 302 to its Remote Authentication URL',
    handler: async () => redirectTo(await customerLoginUrl('login')),
  }),
  route({
    method: 'GET',
    path: '/Guide/User/register',
    site: true,
    page: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary: 'Register on the customer’s site: 302 to its Remote Authentication URL with `register=1`',
    handler: async () => redirectTo(await customerLoginUrl('register')),
  }),
  route({
    method: 'GET',
    path: '/Guide/User/logged_out',
    site: true,
    page: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary: 'After signing out: 302 to the customer’s Remote Authentication URL with `logout=1`',
    handler: async () => redirectTo(await customerLoginUrl('logout')),
  }),
];

const signInRoutes = [
  route({
    method: 'GET',
    path: '/sso/{providerid}/login',
    site: true,
    page: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary:
      'Sign in with a company identity provider: 302 to it (OIDC: code flow with PKCE, state and nonce; ' +
      'SAML: an AuthnRequest by redirect)',
    params: providerParams,
    query: z.object({ returnTo: z.optional(z.string()) }),
    queryExample: { returnTo: '/Guide/Replace+the+print+nozzle/12' },
    handler: async ({ params, query }) =>
      toProvider(await startCompanyLogin(params.providerid, { returnTo: query.returnTo ?? '/' })),
  }),
  route({
    method: 'GET',
    path: '/sso/{providerid}/callback',
    site: true,
    page: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary: 'Where the OpenID Provider sends the browser back: checks the answer, then starts the session',
    params: providerParams,
    handler: async ({ params, rawQueryString, headers }) => {
      const { verifyOidcCallback } = await oidcModule();
      return signInEnded(
        await finishCompanySignIn(await verifyOidcCallback(params.providerid, rawQueryString, headers)),
      );
    },
  }),
  route({
    method: 'POST',
    path: '/sso/{providerid}/acs',
    site: true,
    page: true,
    auth: 'public',
    openOnPrivateSite: true,
    // The IdP's form POST is cross-site and carries no CSRF token of ours: its signature, the
    // InResponseTo of our request and the state cookie stand for it (docs/sessions.md).
    rawBody: true,
    summary: 'SAML assertion consumer service: checks the signed response, then starts the session',
    params: providerParams,
    handler: async ({ params, rawBody, headers }) => {
      const { verifySamlAcs } = await samlModule();
      return signInEnded(await finishCompanySignIn(await verifySamlAcs(params.providerid, rawBody, headers)));
    },
  }),
  route({
    method: 'GET',
    path: '/sso/{providerid}/metadata',
    site: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary: 'SAML SP metadata of a provider (entity id, ACS, NameID formats), for the IdP to import',
    params: providerParams,
    handler: async ({ params }) =>
      rawReply(
        200,
        await (await samlModule()).samlMetadata(params.providerid),
        'application/samlmetadata+xml; charset=utf-8',
        {
          'content-disposition': `inline; filename="stepwise-${params.providerid}-metadata.xml"`,
        },
      ),
  }),
];

const stepUpRoutes = [
  route({
    method: 'GET',
    path: '/sso/step_up',
    site: true,
    page: true,
    auth: 'public',
    // A browser without a session opens it with a ticket (an API-only client's step-up).
    openOnPrivateSite: true,
    summary:
      'Re-authenticate at your identity provider before signing (OIDC prompt=login and max_age, SAML ' +
      'ForceAuthn); back to `returnTo` with a fresh step-up. With `ticket` (POST /api/2.0/user/step_up/ticket) ' +
      'it works in a browser without the session; without one, an anonymous browser is sent to log in',
    query: z.object({ returnTo: z.optional(z.string()), ticket: z.optional(z.string().check(z.maxLength(100))) }),
    queryExample: { returnTo: '/Guide/Replace+the+print+nozzle/12' },
    handler: async ({ caller, query }) => {
      const started = await startStepUp(caller, query);
      return 'login' in started ? loginRedirect(started.login) : toProvider(started);
    },
  }),
  route({
    method: 'GET',
    path: '/sso/sign_for',
    site: true,
    page: true,
    auth: 'user',
    summary:
      'Over-the-shoulder signature by someone who signs in through an identity provider: they sign in there ' +
      'on this device (forced fresh login); back to `returnTo` with the single-use token in the fragment',
    description:
      'Names exactly one of `signoff_requestid` (the fragment then holds `token`, for PATCH …/finalize) and ' +
      '`approval_requestid` (the fragment holds `signing_token`, for POST /approvals/request/sign/{id}); ' +
      '`providerid` when the site has several providers. The person must have an account here and be able ' +
      "to sign (403 otherwise); this device's session is not changed (decision 238).",
    query: z.object({
      signoff_requestid: queryInt,
      approval_requestid: queryInt,
      providerid: z.optional(z.string().check(z.regex(/^[a-z0-9][a-z0-9_-]{0,39}$/))),
      returnTo: z.optional(z.string()),
    }),
    queryExample: { approval_requestid: '12', returnTo: '/approvals/12' },
    handler: async ({ auth, query }) => toProvider(await (await signForModule()).startSignFor(auth, query)),
  }),
  route({
    method: 'POST',
    path: '/user/step_up/ticket',
    auth: 'user',
    mintsCredentials: true,
    status: 201,
    summary:
      `A one-time step-up URL (valid ${STEP_UP_TICKET_SECONDS} s) for an app to open in the system browser, ` +
      'which has no session: the re-authentication then counts for this account',
    description:
      'For accounts that sign through an identity provider (403 otherwise, and for impersonation tokens). The ' +
      'ticket in the URL is random, stored hashed, works once and only starts a step-up of this account.',
    response: z.object({ step_up_url: z.string(), expires_at: z.int() }),
    extensions: BEYOND_SPEC,
    handler: ({ auth }) => issueStepUpTicket(auth),
  }),
  route({
    method: 'GET',
    path: '/user/step_up',
    auth: 'user',
    summary:
      'Whether your signatures need a step-up at your identity provider, the URL to open for it, and ' +
      'until when the last one counts',
    response: z.object({
      required: z.boolean(),
      step_up_url: z.nullable(z.string()),
      method: z.nullable(z.enum(['oidc', 'saml'])),
      auth_time: z.nullable(z.number()),
      fresh_until: z.nullable(z.number()),
    }),
    extensions: BEYOND_SPEC,
    handler: ({ caller }) => stepUpStatus(caller),
  }),
];

export const ssoGroup = defineGroup({
  name: 'sso',
  // Seals and opens the providers' secrets (decision 240).
  access: { table: 'readwrite', secretsKey: true },
  pageError: ssoPageError,
  routes: [...adminRoutes, ...remoteLoginRoutes, ...signInRoutes, ...stepUpRoutes],
});
