/** The SCIM filter parser (shared/domain/scim-filter.ts): what identity providers send, and refusals. */
import { describe, expect, it } from 'vitest';
import { equalityOn, matchesScimFilter, parseScimFilter, ScimFilterError } from '../../shared/domain/scim-filter.ts';

const jane = (path: string) =>
  (
    ({
      username: ['Jane.Doe@Example.com'],
      emails: ['jane.doe@example.com', 'jd@example.org'],
      externalid: ['00uAbC'],
      active: [true],
    }) as Record<string, Array<string | boolean>>
  )[path] ?? [];

const matches = (filter: string) => matchesScimFilter(parseScimFilter(filter), jane);

describe('SCIM filters', () => {
  it('eq ignores case except on externalId; co, sw, ew, pr', () => {
    expect(matches('userName eq "jane.doe@example.com"')).toBe(true);
    expect(matches('externalId eq "00uabc"')).toBe(false);
    expect(matches('externalId eq "00uAbC"')).toBe(true);
    expect(matches('emails co "example.org"')).toBe(true);
    expect(matches('userName sw "jane"')).toBe(true);
    expect(matches('userName ew ".com"')).toBe(true);
    expect(matches('title pr')).toBe(false);
    expect(matches('active eq true')).toBe(true);
  });

  it('and binds tighter than or; parentheses and not', () => {
    expect(matches('userName eq "x" or userName sw "jane" and emails co "org"')).toBe(true);
    expect(matches('(userName eq "x" or userName sw "jane") and emails co "nothing"')).toBe(false);
    expect(matches('not (userName eq "x")')).toBe(true);
    expect(matches('urn:ietf:params:scim:schemas:core:2.0:User:userName EQ "JANE.DOE@EXAMPLE.COM"')).toBe(true);
  });

  it('reads escaped quotes in values, and names a top-level equality', () => {
    expect(parseScimFilter('displayName eq "say \\"hi\\""')).toMatchObject({ value: 'say "hi"' });
    expect(equalityOn(parseScimFilter('userName eq "a@b.c"'), 'userName')).toBe('a@b.c');
    expect(equalityOn(parseScimFilter('userName co "a"'), 'userName')).toBeUndefined();
  });

  it.each([
    'userName gt "a"',
    'userName eq',
    'userName like "a"',
    'userName eq "a" and',
    '(userName eq "a"',
    'emails[type eq "work"] pr',
    'userName eq unquoted',
    '',
    `${'('.repeat(30)}userName pr${')'.repeat(30)}`,
  ])('refuses %s', (filter) => {
    expect(() => parseScimFilter(filter)).toThrow(ScimFilterError);
  });
});
