import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import fc from 'fast-check';
import { toXml } from '../../shared/http/xml.ts';
import { pagination, queryFlag } from '../../shared/http/query.ts';
import { negotiateFormat } from '../../shared/http/respond.ts';
import { canonicalJson } from '../../shared/domain/canonical-json.ts';
import { searchTokens, normalizeSearchTerm } from '../../shared/domain/search-tokens.ts';
import { hashPassword, verifyPassword } from '../../shared/domain/secrets.ts';
import { uniqueUsernameBase, UNIQUE_USERNAME } from '../../shared/domain/user-rules.ts';

describe('XML', () => {
  it('escapes text and turns non-XML keys into entry elements', () => {
    expect(toXml({ a: '<b>&', '140x105': 'u', list: [1, null] })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<response><a>&lt;b&gt;&amp;</a><entry ' +
        'key="140x105">u</entry><list><item>1</item><item/></list></response>',
    );
  });
});

describe('query values', () => {
  const flag = z.object({ pretty: queryFlag });
  it.each([
    [{}, false],
    [{ pretty: '' }, true],
    [{ pretty: '1' }, true],
    [{ pretty: 'true' }, true],
    [{ pretty: '0' }, false],
    [{ pretty: 'false' }, false],
  ])('flag %o is %s', (input, expected) => {
    expect(flag.parse(input).pretty).toBe(expected);
  });

  it('pages default to limit 20 offset 0 and clamp limit at 200', () => {
    const page = z.object(pagination);
    expect(page.parse({})).toEqual({ limit: 20, offset: 0 });
    expect(page.parse({ limit: '500', offset: '40' })).toEqual({ limit: 200, offset: 40 });
    expect(page.safeParse({ limit: '0' }).success).toBe(false);
    expect(page.safeParse({ offset: '-1' }).success).toBe(false);
  });

  it('negotiates XML from Accept or ?format, JSON otherwise', () => {
    expect(negotiateFormat(new URLSearchParams('format=xml'), {}).xml).toBe(true);
    expect(negotiateFormat(new URLSearchParams(''), { accept: 'application/xml' }).xml).toBe(true);
    expect(negotiateFormat(new URLSearchParams(''), { accept: 'application/json, application/xml' }).xml).toBe(false);
    expect(negotiateFormat(new URLSearchParams('format=json'), { accept: 'application/xml' }).xml).toBe(false);
  });
});

describe('canonical JSON', () => {
  it('is independent of key order', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (object) => {
        const reversed = Object.fromEntries(Object.entries(object).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(object));
      }),
    );
  });
});

describe('search tokens', () => {
  it('folds case and accents and keeps each word', () => {
    expect(searchTokens('José  García', 'jgarcia')).toEqual(['jose', 'garcia', 'jose garcia', 'jgarcia']);
    expect(normalizeSearchTerm('  GARCÍA ')).toBe('garcia');
  });
});

describe('passwords', () => {
  it('verifies the right password only, and never stores it', async () => {
    const hash = await hashPassword('Secret-pass-1');
    expect(hash).not.toContain('Secret');
    expect(await verifyPassword('Secret-pass-1', hash)).toBe(true);
    expect(await verifyPassword('secret-pass-1', hash)).toBe(false);
    expect(await verifyPassword('anything', '!')).toBe(false);
  });
});

describe('unique usernames', () => {
  it('derives a valid base from any name', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (name) => {
        expect(uniqueUsernameBase(name)).toMatch(UNIQUE_USERNAME);
      }),
    );
  });
});
