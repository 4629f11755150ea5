/**
 * Authentication lookups are cached in the container for a second (shared/http/authenticate.ts,
 * docs/decisions/ 106); a write made through the same container empties the cache. These
 * check that a revocation or a role change is never served from the cache there: each request
 * right before the change has just put the caller in the cache.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin } from '../support/api.ts';

describe('authentication cache', () => {
  // Both requests reach the auth function: on AWS, too, they may share a container.
  it('a logout takes effect at once for the token just used', async () => {
    const user = await createUser();
    expect((await api('DELETE', '/user/token', { token: user.token })).status).toBe(204);
    const again = await api('DELETE', '/user/token', { token: user.token });
    expect(again.status).toBe(401);
  });

  it('a role given or taken by an Admin applies to the very next request', async () => {
    const user = await createUser();
    const admin = await loginAdmin();
    const adminOnly = `/users/email/${encodeURIComponent(user.email)}`;
    expect((await api('GET', adminOnly, { token: user.token })).status).toBe(403);
    expect(
      (await api('PATCH', `/users/${user.userid}`, { token: admin, body: { privileges: ['Admin'] } })).status,
    ).toBe(200);
    const promoted = await api('GET', adminOnly, { token: user.token });
    expect(promoted.status).toBe(200);
    expect(promoted.body.userid).toBe(user.userid);
    expect((await api('PATCH', `/users/${user.userid}`, { token: admin, body: { privileges: ['User'] } })).status).toBe(
      200,
    );
    expect((await api('GET', adminOnly, { token: user.token })).status).toBe(403);
  });
});
