/**
 * Browser sessions (docs/sessions.md, decisions 216-218), over HTTP against the local stack (a
 * private site): the login form and its cookie, CSRF on every form POST, the cookie counting
 * only on pages and GET /user, logout and password changes ending the session, the reset link.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { api, createUser, loginAdmin, site, uniqueSuffix } from '../support/api.ts';
import { csrfIn, Visitor } from '../support/sessions.ts';

interface Mail {
  to: string;
  kind: string;
  subject: string;
  text: string;
}

function mailsTo(email: string): Mail[] {
  const folder = inject('outboxDir');
  return readdirSync(folder)
    .map((file) => JSON.parse(readFileSync(join(folder, file), 'utf8')) as Mail)
    .filter((message) => message.to === email);
}

function resetTokenMailedTo(email: string): string {
  const tokens = mailsTo(email).map((message) => /reset_password\?token=([0-9a-f]{64})/.exec(message.text)![1]!);
  expect(tokens).toHaveLength(1);
  return tokens[0]!;
}

describe('the login page', () => {
  it('shows a form whose CSRF token is tied to a pre-session cookie (HttpOnly, Lax, not Secure here)', async () => {
    const response = await site('GET', '/login', { query: { returnTo: '/Guide/Fix/1' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const [cookie] = response.headers.getSetCookie();
    expect(cookie).toMatch(/^stepwise_presession=[0-9a-f]{64}; Path=\/; Max-Age=86400; HttpOnly; SameSite=Lax$/);
    expect(response.text).toContain('<input type="hidden" name="returnTo" value="/Guide/Fix/1">');
    expect(csrfIn(response.text)).toMatch(/^[0-9a-f]{64}$/);
    expect(response.text).toMatch(/<div class="session"><h1>Log in<\/h1>/);
  });

  it('signs in: a session cookie of the token store, and back to returnTo', async () => {
    const user = await createUser();
    const visitor = new Visitor();
    const response = await visitor.signIn(user.email, user.password, '/Guide/Fix/1?lang=en');
    expect(response.headers.get('location')).toBe('/Guide/Fix/1?lang=en');
    const session = response.headers.getSetCookie().find((line) => line.startsWith('stepwise_session='))!;
    expect(session).toMatch(
      new RegExp(`^stepwise_session=[0-9a-f]{64}\\.${user.userid}; Path=/; Max-Age=\\d+; HttpOnly; SameSite=Lax$`),
    );
    // The session is a token: the API takes it in the Authorization header too.
    const token = visitor.cookies.get('stepwise_session')!;
    expect((await api('GET', '/user', { token })).body.userid).toBe(user.userid);
    // Signed in, the login page says so and offers the sign-out button.
    const again = await visitor.get('/login');
    expect(again.text).toContain('You are signed in as');
    expect(again.text).toContain('action="/logout"');
  });

  it('never sends anyone off the site: returnTo is a path of this site or /', async () => {
    const user = await createUser();
    for (const returnTo of [
      'https://evil.example/x',
      '//evil.example/x',
      '/\\evil.example',
      'javascript:alert(1)',
      // One normalisation makes these //evil.example: checked until stable (issue 35 item 9).
      '/.//evil.example',
      '/a/..//evil.example/x',
    ]) {
      const response = await new Visitor().signIn(user.email, user.password, returnTo);
      expect(response.headers.get('location'), returnTo).toBe('/');
    }
    // Signed in, the login page's link back is never to another host either.
    const visitor = new Visitor();
    await visitor.signIn(user.email, user.password);
    const page = await visitor.get('/login?returnTo=/.//evil.example');
    expect(page.text).toContain('You are signed in as');
    expect(page.text).not.toContain('//evil.example');
  });

  it('a wrong password shows the form again (401), with the address kept and escaped', async () => {
    const visitor = new Visitor();
    const csrf = await visitor.csrfOf('/login');
    const email = `"><script>alert(1)</script>${uniqueSuffix()}@example.com`;
    const response = await visitor.post('/login', { email, password: 'not-the-password', csrf });
    expect(response.status).toBe(401);
    expect(response.text).toContain('Invalid email or password.');
    expect(response.text).not.toContain('<script>alert(1)');
    expect(response.text).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(response.headers.getSetCookie().some((line) => line.startsWith('stepwise_session='))).toBe(false);
  });
});

describe('CSRF: every form POST carries the token of this browser', () => {
  it('refuses (403) a login without the token, with a wrong one, or without the cookie it is tied to', async () => {
    const user = await createUser();
    const visitor = new Visitor();
    const csrf = await visitor.csrfOf('/login');
    const fields = { email: user.email, password: user.password };
    const missing = await visitor.post('/login', fields);
    expect(missing.status).toBe(403);
    // A page, not the API's JSON: the visitor reads what to do.
    expect(missing.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(missing.text).toContain('<h1>Not allowed</h1>');
    expect(missing.text).toContain('reload the page and try again');
    expect((await visitor.post('/login', { ...fields, csrf: 'f'.repeat(64) })).status).toBe(403);
    // The token alone, from another site's page that once saw it: no cookie, no session.
    expect((await new Visitor().post('/login', { ...fields, csrf })).status).toBe(403);
    expect((await visitor.post('/login', { ...fields, csrf })).status).toBe(303);
  });

  it('refuses a logout without the session token: a link or another site cannot sign anyone out', async () => {
    const user = await createUser();
    const visitor = new Visitor();
    await visitor.signIn(user.email, user.password);
    const token = visitor.cookies.get('stepwise_session')!;
    expect((await visitor.post('/logout', {})).status).toBe(403);
    expect((await api('GET', '/user', { token })).status).toBe(200);
  });
});

describe('the cookie authenticates pages and GET /api/2.0/user only', () => {
  it('GET /user with the cookie answers the user with authToken, the session token (single sign-on)', async () => {
    const user = await createUser();
    const visitor = new Visitor();
    await visitor.signIn(user.email, user.password);
    const response = await api('GET', '/user', { headers: visitor.cookieHeader() });
    expect(response.status).toBe(200);
    expect(response.body.userid).toBe(user.userid);
    expect(response.body.authToken).toBe(visitor.cookies.get('stepwise_session'));
    // An answer carrying a token is kept by no cache (issue 35 item 9).
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    const login = await api('POST', '/user/token', { body: { email: user.email, password: user.password } });
    expect(login.headers.get('cache-control')).toBe('private, no-store');
    // With a token, no authToken: it is the session's to hand out.
    expect((await api('GET', '/user', { token: user.token })).body).not.toHaveProperty('authToken');
  });

  it('a forged cross-site API write with the cookie alone is refused (401), reads too', async () => {
    const author = await createUser({ privileges: ['Author'] });
    const visitor = new Visitor();
    await visitor.signIn(author.email, author.password);
    const cookie = visitor.cookieHeader();
    const write = await api('POST', '/guides', {
      headers: { ...cookie, origin: 'https://evil.example' },
      body: { type: 'how-to', category: 'Forged', title: 'Forged guide' },
    });
    expect(write.status).toBe(401);
    expect((await api('PATCH', `/users/${author.userid}`, { headers: cookie, body: { location: 'x' } })).status).toBe(
      401,
    );
    expect((await api('GET', '/user/badges', { headers: cookie })).status).toBe(401);
    // The same write with the session's token as an API token is the user's own.
    const own = await api('PATCH', `/users/${author.userid}`, {
      token: visitor.cookies.get('stepwise_session')!,
      body: { location: 'Leeds' },
    });
    expect(own.status).toBe(200);
  });
});

describe('closed pages send anonymous visitors to login', () => {
  it('302 to /login?returnTo=<the page>, and back there after signing in', async () => {
    const visitor = new Visitor();
    const anonymous = await visitor.get('/logout');
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get('location')).toBe('/login?returnTo=%2Flogout');
    expect(anonymous.headers.get('cache-control')).toBe('private, no-store');
    const user = await createUser();
    const signedIn = await visitor.signIn(user.email, user.password, '/logout');
    expect(signedIn.headers.get('location')).toBe('/logout');
    const page = await visitor.get('/logout');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Sign out</h1>');
  });

  it('a cookie naming no live session is no session', async () => {
    const user = await createUser();
    const stale = `${'a'.repeat(64)}.${user.userid}`;
    const response = await site('GET', '/logout', { headers: { cookie: `stepwise_session=${stale}` } });
    expect(response.status).toBe(302);
    expect((await api('GET', '/user', { headers: { cookie: `stepwise_session=${stale}` } })).status).toBe(401);
  });
});

describe('sessions end with the token', () => {
  it('logout deletes the token: the cookie, and the same token in an API client, stop working', async () => {
    const user = await createUser();
    const visitor = new Visitor();
    await visitor.signIn(user.email, user.password);
    const token = visitor.cookies.get('stepwise_session')!;
    const csrf = csrfIn((await visitor.get('/logout')).text);
    const out = await visitor.post('/logout', { csrf });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/login');
    expect(out.headers.getSetCookie()).toContain('stepwise_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax');
    expect((await api('GET', '/user', { token })).status).toBe(401);
    expect((await site('GET', '/logout', { headers: { cookie: `stepwise_session=${token}` } })).status).toBe(302);
    // The user's other tokens are theirs to end.
    expect((await api('GET', '/user', { token: user.token })).status).toBe(200);
  });

  it('a password change ends the session', async () => {
    const user = await createUser();
    const visitor = new Visitor();
    await visitor.signIn(user.email, user.password);
    const changed = await api('PATCH', `/users/${user.userid}`, {
      token: await loginAdmin(),
      body: { password: `Changed-${uniqueSuffix()}` },
    });
    expect(changed.status).toBe(200);
    expect((await visitor.get('/logout')).status).toBe(302);
  });
});

describe('the reset link page', () => {
  it('asks for a link, sets a new password from the mailed link, ends the old sessions, then signs in', async () => {
    const user = await createUser();
    const old = new Visitor();
    await old.signIn(user.email, user.password);
    const visitor = new Visitor();
    const asked = await visitor.post('/reset_password/request', {
      email: user.email,
      csrf: await visitor.csrfOf('/reset_password'),
    });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('If an account has that address');
    const token = resetTokenMailedTo(user.email);

    const form = await visitor.get(`/reset_password?token=${token}`);
    expect(form.headers.get('referrer-policy')).toBe('no-referrer');
    expect(form.text).toContain(`name="token" value="${token}"`);
    const csrf = csrfIn(form.text);
    const weak = await visitor.post('/reset_password', { token, password: 'aaaaaaaa', confirm: 'aaaaaaaa', csrf });
    expect(weak.status).toBe(422);
    expect(weak.text).toContain('The password is too simple.');
    const password = `Brand-new-${uniqueSuffix()}`;
    const differ = await visitor.post('/reset_password', { token, password, confirm: `${password}x`, csrf });
    expect(differ.text).toContain('The two passwords differ.');
    const done = await visitor.post('/reset_password', { token, password, confirm: password, csrf });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/login?changed=1');
    expect((await visitor.get('/login?changed=1')).text).toContain('Your password is set.');

    expect((await old.get('/logout')).status).toBe(302);
    await visitor.signIn(user.email, password);
    // The link works once.
    const reused = await visitor.post('/reset_password', {
      token,
      password: `${password}-2`,
      confirm: `${password}-2`,
      csrf: csrfIn((await visitor.get(`/reset_password?token=${token}`)).text),
    });
    expect(reused.status).toBe(422);
    expect(reused.text).toContain('invalid, used or expired');
  });
});

describe('the invitation link', () => {
  it('an invited account chooses its first password on the link page, then signs in', async () => {
    const email = `invitee.${uniqueSuffix()}@example.com`;
    const invited = await api('POST', '/users/createByEmails', {
      token: await loginAdmin(),
      body: { emails: [email] },
    });
    expect(invited.status).toBe(200);
    const [mail] = mailsTo(email);
    expect(mail).toMatchObject({ kind: 'invitation', subject: 'Your Stepwise account: choose a password' });
    expect(mail!.text).toContain('An account on Stepwise was made for you.');
    const token = resetTokenMailedTo(email);
    const visitor = new Visitor();
    const form = await visitor.get(`/reset_password?token=${token}`);
    expect(form.status).toBe(200);
    expect(form.text).toContain('<h1>Choose a password</h1>');
    const password = `First-${uniqueSuffix()}`;
    const set = await visitor.post('/reset_password', { token, password, confirm: password, csrf: csrfIn(form.text) });
    expect(set.headers.get('location')).toBe('/login?changed=1');
    await visitor.signIn(email, password);
    expect((await api('GET', '/user', { headers: visitor.cookieHeader() })).body.email).toBe(email);
  });
});
