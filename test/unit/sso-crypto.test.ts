/**
 * The pure parts of company sign-in: Dozuki's remote-login hash rule (decision 231) and the
 * sealing of provider secrets at rest (decision 232).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { remoteLoginHash, signRemoteLogin, verifyRemoteLogin } from '../../shared/domain/remote-login.ts';
import { atRestKey, openAtRest, sealAtRest } from '../../shared/domain/secret-at-rest.ts';

const SECRET = 'sso-secret-0123456789';
const T = 1_357_604_345;

describe('Dozuki remote login', () => {
  it('hashes as Dozuki documents it: hex(sha1(query + secret)), the query in the order sent', () => {
    const query = 'userid=2345&email=george%40email.com&name=George&t=1357604345';
    expect(remoteLoginHash(query, SECRET)).toBe(
      createHash('sha1')
        .update(query + SECRET)
        .digest('hex'),
    );
    expect(signRemoteLogin({ userid: '2345', email: 'george@email.com', name: 'George', t: T }, SECRET)).toBe(
      `${query}&hash=${remoteLoginHash(query, SECRET)}`,
    );
  });

  it('verifies a signed query, and says what is wrong with the others', () => {
    const signed = signRemoteLogin({ userid: '2345', email: 'george@email.com', name: 'George', t: T }, SECRET);
    expect(verifyRemoteLogin(signed, SECRET, T + 10, 300)).toEqual({
      ok: true,
      claims: { userid: '2345', email: 'george@email.com', name: 'George', t: T, hash: signed.split('&hash=')[1] },
    });
    expect(verifyRemoteLogin(signed.replace('george%40', 'admin%40'), SECRET, T, 300)).toEqual({
      ok: false,
      problem: 'bad_hash',
    });
    expect(verifyRemoteLogin(signed, 'another-secret', T, 300)).toEqual({ ok: false, problem: 'bad_hash' });
    expect(verifyRemoteLogin(signed.split('&hash=')[0]!, SECRET, T, 300)).toEqual({ ok: false, problem: 'unsigned' });
    expect(verifyRemoteLogin(signed, SECRET, T + 301, 300)).toEqual({ ok: false, problem: 'stale' });
    expect(verifyRemoteLogin(signed, SECRET, T - 301, 300)).toEqual({ ok: false, problem: 'stale' });
    const noEmail = `userid=1&t=${T}`;
    expect(verifyRemoteLogin(`${noEmail}&hash=${remoteLoginHash(noEmail, SECRET)}`, SECRET, T, 300)).toEqual({
      ok: false,
      problem: 'missing_field',
    });
  });
});

describe('secrets at rest', () => {
  it('open only with the same key and for the same item', () => {
    const key = atRestKey('deployment-key-1');
    const sealed = sealAtRest('client-secret', key, 'IDP#okta#client_secret');
    expect(sealed).not.toContain('client-secret');
    expect(openAtRest(sealed, key, 'IDP#okta#client_secret')).toBe('client-secret');
    expect(openAtRest(sealed, atRestKey('deployment-key-2'), 'IDP#okta#client_secret')).toBeUndefined();
    expect(openAtRest(sealed, key, 'IDP#other#client_secret')).toBeUndefined();
    expect(sealAtRest('client-secret', key, 'IDP#okta#client_secret')).not.toBe(sealed);
  });
});
