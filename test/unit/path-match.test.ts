import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PathMatcher } from '../../shared/http/path-match.ts';

const matcher = new PathMatcher([
  { method: 'GET', path: '/users/{userid}/guides', value: 'user-guides' },
  { method: 'GET', path: '/users/email/{email}', value: 'by-email' },
  { method: 'GET', path: '/users/{userid}', value: 'user' },
  { method: 'PATCH', path: '/users/{userid}', value: 'patch-user' },
  { method: 'GET', path: '/users/created_users', value: 'created' },
]);

describe('PathMatcher', () => {
  it('prefers a literal segment at the first difference, as API Gateway does', () => {
    expect(matcher.match('GET', '/users/email/guides')?.value).toBe('by-email');
    expect(matcher.match('GET', '/users/created_users')?.value).toBe('created');
    expect(matcher.match('GET', '/users/7/guides')).toEqual({ value: 'user-guides', params: { userid: '7' } });
  });

  it('decodes parameters and refuses malformed escapes', () => {
    expect(matcher.match('GET', '/users/email/a%40b.com')?.params).toEqual({ email: 'a@b.com' });
    expect(matcher.match('GET', '/users/email/%E0%A4%A')).toBeUndefined();
  });

  it('form-decodes the parameters of a route that asks for it: + is a space, %2B a plus', () => {
    const forms = new PathMatcher([
      { method: 'GET', path: '/categories/{name}', value: 'category', plusAsSpace: true },
      { method: 'GET', path: '/users/email/{email}', value: 'by-email' },
    ]);
    expect(forms.match('GET', '/categories/Press+line')?.params).toEqual({ name: 'Press line' });
    expect(forms.match('GET', '/categories/C%2B%2B+tools')?.params).toEqual({ name: 'C++ tools' });
    expect(forms.match('GET', '/users/email/a+b%40example.com')?.params).toEqual({ email: 'a+b@example.com' });
  });

  it('lists the methods a path allows (for 405)', () => {
    expect(matcher.allowedMethods('/users/3').sort()).toEqual(['GET', 'PATCH']);
    expect(matcher.allowedMethods('/nothing')).toEqual([]);
  });

  it('never matches a path with a different number of segments', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z0-9]{1,8}$/), { minLength: 0, maxLength: 6 }), (segments) => {
        const match = matcher.match('GET', `/${segments.join('/')}`);
        if (match) expect([2, 3]).toContain(segments.length);
      }),
    );
  });
});
