import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import fc from 'fast-check';
import { XMLValidator } from 'fast-xml-parser';
import { toXml } from '../../shared/http/xml.ts';
import { pagination, queryFlag } from '../../shared/http/query.ts';
import { negotiateFormat } from '../../shared/http/respond.ts';
import { canonicalJson } from '../../shared/domain/canonical-json.ts';
import { searchTokens, normalizeSearchTerm } from '../../shared/domain/search-tokens.ts';
import { hashPassword, verifyPassword } from '../../shared/domain/secrets.ts';
import { uniqueUsernameBase, UNIQUE_USERNAME } from '../../shared/domain/user-rules.ts';

/** Well-formed: the structure parses, and every character is one XML 1.0's `Char` production allows. */
function expectWellFormedXml(xml: string): void {
  expect(XMLValidator.validate(xml)).toBe(true);
  const allowed = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;
  expect(allowed.test(xml)).toBe(true);
}

describe('XML', () => {
  it('escapes text and turns non-XML keys into entry elements', () => {
    expect(toXml({ a: '<b>&', '140x105': 'u', list: [1, null] })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<response><a>&lt;b&gt;&amp;</a><entry ' +
        'key="140x105">u</entry><list><item>1</item><item/></list></response>',
    );
  });

  it('replaces characters XML 1.0 cannot carry (C0 controls, U+FFFE/U+FFFF, lone surrogates) by U+FFFD', () => {
    const xml = toXml({ text: 'a\u0000b\u0001c\u001Fd\tok\ne\uFFFFf\uD800g', 'k\u0002': 'v' });
    expect(xml).toContain('<text>a\uFFFDb\uFFFDc\uFFFDd\tok\ne\uFFFDf\uFFFDg</text>');
    expect(xml).toContain('<entry key="k\uFFFD">v</entry>');
    expectWellFormedXml(xml);
  });

  it('any string renders to well-formed XML', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (key, value) => {
        expectWellFormedXml(toXml({ [key]: value, list: [value] }));
      }),
      { numRuns: 100 },
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
