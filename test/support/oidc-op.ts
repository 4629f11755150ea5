/**
 * A real OpenID Provider in the test process: oidc-provider (npm), with interactions that sign
 * in whoever the test names and grant consent at once. Its token answer can be tampered with
 * (re-signed with the provider's own key, or not signed at all) to play a provider that lies:
 * wrong audience, wrong issuer, expired, another nonce, unsigned.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface OpAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

export type Tamper = (claims: Record<string, unknown>) => {
  claims: Record<string, unknown>;
  unsigned?: boolean;
  /** Signed with another key under the provider's key id: only a check against its JWKS sees it. */
  foreignKey?: boolean;
};

export interface TestOp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, OpAccount>;
  /** Who the next login at the provider signs in as. */
  signInAs(sub: string): void;
  /** Changes the next ID token the token endpoint sends (undefined: none). */
  tamperNext(tamper: Tamper | undefined): void;
  /** The prompt and max_age of the authorization requests seen, newest last. */
  authorizations: URLSearchParams[];
  /** Every request's path and User-Agent, oldest first (who fetched discovery, keys, tokens). */
  requests: Array<{ path: string; userAgent: string }>;
  close(): Promise<void>;
}

const b64url = (value: Buffer | string) => Buffer.from(value).toString('base64url');

function signJwt(header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject | null): string {
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  if (!key) return `${input}.`;
  const signature = createSign('RSA-SHA256').update(input).sign(key);
  return `${input}.${b64url(signature)}`;
}

export interface OpOptions {
  /**
   * Show a login form (the account's sub typed in, no password) instead of signing in
   * `signInAs` at once: what a browser test fills in.
   */
  loginForm?: boolean;
  /**
   * Give email, name and groups at the UserInfo endpoint only, not in the ID token: oidc-provider's
   * default and OIDC Core §5.4's for claims asked by scope.
   */
  claimsAtUserInfo?: boolean;
}

const LOGIN_FORM = (uid: string) =>
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test OP sign-in</title></head><body>' +
  `<form method="post" action="/interaction/${uid}/login"><label for="login">User</label>` +
  '<input id="login" name="login" autocomplete="username"><button type="submit">Sign in at the OP</button>' +
  '</form></body></html>';

async function formField(req: IncomingMessage, name: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get(name) ?? '';
}

export async function startOp(redirectUri: string, options: OpOptions = {}): Promise<TestOp> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'test-op-key', use: 'sig', alg: 'RS256' };
  const accounts = new Map<string, OpAccount>();
  const authorizations: URLSearchParams[] = [];
  const requests: TestOp['requests'] = [];
  let nextSub = 'nobody';
  let tamper: Tamper | undefined;

  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'stepwise-test';
  const clientSecret = 'stepwise-test-client-secret-0123456789';

  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri] }],
    jwks: { keys: [jwk] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    // The claims travel in the ID token itself, as Entra ID and Okta can be set to do.
    conformIdTokenClaims: options.claimsAtUserInfo === true,
    cookies: { keys: ['test-op-cookie-key'] },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({ sub, ...(accounts.get(sub) ?? {}) }),
    }),
  });
  const callback = provider.callback();

  async function interaction(req: IncomingMessage, res: ServerResponse) {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'login' && options.loginForm) {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(LOGIN_FORM(details.uid));
        return;
      }
      const accountId = await formField(req, 'login');
      await provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
      return;
    }
    if (details.prompt.name === 'login') {
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: nextSub } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const grant = new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  function tamperToken(res: ServerResponse) {
    const end = res.end.bind(res);
    (res as unknown as { end: (chunk?: unknown) => unknown }).end = (chunk?: unknown) => {
      const current = tamper;
      if (!current || chunk === undefined) return end(chunk as string);
      tamper = undefined;
      const body = JSON.parse(String(chunk)) as { id_token?: string };
      if (body.id_token) {
        const claims = JSON.parse(Buffer.from(body.id_token.split('.')[1]!, 'base64url').toString('utf8'));
        const changed = current(claims);
        body.id_token = changed.unsigned
          ? signJwt({ alg: 'none' }, changed.claims, null)
          : signJwt(
              { alg: 'RS256', kid: 'test-op-key' },
              changed.claims,
              changed.foreignKey ? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey : privateKey,
            );
      }
      const text = JSON.stringify(body);
      res.setHeader('content-length', Buffer.byteLength(text));
      return end(text);
    };
  }

  server.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    requests.push({ path: url.pathname, userAgent: req.headers['user-agent'] ?? '' });
    if (url.pathname.startsWith('/interaction/')) {
      interaction(req, res).catch((error) => {
        res.statusCode = 500;
        res.end(String(error));
      });
      return;
    }
    if (url.pathname === '/auth') authorizations.push(url.searchParams);
    if (url.pathname === '/token') tamperToken(res);
    callback(req, res);
  });

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    authorizations,
    requests,
    signInAs: (sub) => {
      nextSub = sub;
    },
    tamperNext: (next) => {
      tamper = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Follows the provider's redirects (its own cookies kept) until it sends the browser elsewhere. */
export async function throughOp(op: TestOp, authorizationUrl: string): Promise<string> {
  const jar = new Map<string, string>();
  let url = authorizationUrl;
  for (let hop = 0; hop < 10; hop++) {
    if (!url.startsWith(op.issuer)) return url;
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    const location = response.headers.get('location');
    if (!location) throw new Error(`The provider answered ${response.status}: ${await response.text()}`);
    url = new URL(location, url).toString();
  }
  throw new Error('Too many redirects at the provider');
}
