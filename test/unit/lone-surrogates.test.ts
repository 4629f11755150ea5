/**
 * Renderers and URL builders never throw on stored text (issue 12 item 1): records saved with a
 * lone UTF-16 surrogate before the API refused them still read back. And the boundary helpers
 * that refuse such text, and JSON nested too deep, decide without recursing on the input.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  parseInline,
  renderHtml,
  renderInlineHtml,
  renderWiki,
  wikiPath as syntaxWikiPath,
} from '../../shared/domain/wiki-syntax/index.ts';
import { encodeUriComponentSafe, isWellFormedText, urlSlug } from '../../shared/domain/text.ts';
import { wikiPath } from '../../shared/domain/wiki-namespaces.ts';
import { userUrl } from '../../shared/views/user-views.ts';
import { guideUrl } from '../../shared/views/guide-views.ts';
import { wikiUrl } from '../../shared/domain/wiki-namespaces.ts';
import { filterPartition } from '../../shared/db/entities/work-log.ts';
import {
  jsonNestsDeeperThan,
  malformedTextPaths,
  MAX_JSON_DEPTH,
  parseJsonText,
} from '../../shared/domain/json-text.ts';
import { ValidationError } from '../../shared/domain/errors.ts';

const SITE = 'http://127.0.0.1:3000';
const LONE = ['\ud800', '\udbff', '\udc00', '\udfff'];

/** Text with lone surrogates mixed into arbitrary characters and wiki markup. */
const poisoned = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom(...LONE),
      fc.constantFrom('[[', ']]', '|', '#', ' ', '[', ']', '/', 'CATEGORY:', 'guide|', 'http://x.test/'),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

describe('URL builders and renderers take any stored text', () => {
  it('never throw and always produce well-formed text', () => {
    fc.assert(
      fc.property(poisoned, (text) => {
        const outputs = [
          encodeUriComponentSafe(text),
          urlSlug(text),
          wikiPath({ namespace: 'WIKI', title: text }),
          syntaxWikiPath('CATEGORY', text, text),
          userUrl(SITE, { userid: 1, username: text }),
          guideUrl(SITE, { guideid: 1, title: text }),
          wikiUrl(SITE, { namespace: 'WIKI', title: text }),
          filterPartition({ workorderid: text }),
          renderWiki(`== ${text} ==\n[[${text}]] [[${text}|${text}]] [guide|1|${text}] ${text}`, { siteUrl: SITE })
            .html,
          renderInlineHtml(parseInline(`[[${text}]] ${text}`), { siteUrl: SITE }),
          renderHtml(renderWiki(`* [[WIKI:${text}#${text}]]`, { siteUrl: SITE }).json, { siteUrl: SITE }),
        ];
        for (const output of outputs.slice(0, 8)) expect(isWellFormedText(output)).toBe(true);
      }),
      { seed: 12, numRuns: 300 },
    );
  });

  it('encode a lone surrogate as U+FFFD', () => {
    expect(userUrl(SITE, { userid: 7, username: 'x\ud800' })).toBe(`${SITE}/User/7/x%EF%BF%BD`);
    expect(wikiPath({ namespace: 'WIKI', title: 'a b\udc00' })).toBe('/Wiki/a_b%EF%BF%BD');
  });
});

describe('boundary checks on JSON input', () => {
  it('names the paths of malformed strings and keys, at any depth, without recursion', () => {
    let deep: unknown = 'x\ud800';
    for (let i = 0; i < 3_000; i++) deep = [deep];
    expect(malformedTextPaths(deep, 'body')).toHaveLength(1);
    expect(malformedTextPaths({ a: ['ok', 'b\udfff'], 'k\ud800': 1, fine: 'é😀' }, 'body').sort()).toEqual([
      'a.1',
      'k\ufffd',
    ]);
    expect(malformedTextPaths('\ud800', 'body')).toEqual(['body']);
    expect(malformedTextPaths({ emoji: '😀', text: 'plain' }, 'body')).toEqual([]);
  });

  it('measures nesting depth on the text, ignoring brackets inside strings', () => {
    expect(jsonNestsDeeperThan('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(jsonNestsDeeperThan('['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(
      true,
    );
    expect(jsonNestsDeeperThan(JSON.stringify({ text: '[{'.repeat(1000), escaped: '\\"[[[' }), 2)).toBe(false);
    expect(jsonNestsDeeperThan('['.repeat(1_000_000), MAX_JSON_DEPTH)).toBe(true);
  });

  it('agrees with the real depth of any JSON value', () => {
    const depthOf = (value: unknown): number =>
      value !== null && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0;
    fc.assert(
      fc.property(fc.jsonValue({ depthSize: 'medium' }), fc.nat({ max: 8 }), (value, max) => {
        expect(jsonNestsDeeperThan(JSON.stringify(value), max)).toBe(depthOf(value) > max);
      }),
      { seed: 5, numRuns: 500 },
    );
  });

  it('parses JSON text in a field behind both bounds', () => {
    expect(parseJsonText('{"a":[1]}', 'response_json')).toEqual({ value: { a: [1] } });
    expect(parseJsonText('{broken', 'response_json')).toBeUndefined();
    expect(() => parseJsonText('['.repeat(10_000) + ']'.repeat(10_000), 'response_json')).toThrow(ValidationError);
    try {
      parseJsonText('{"a":{"b":"\\ud800"}}', 'response_json');
      expect.unreachable();
    } catch (error) {
      expect((error as ValidationError).errors).toEqual([
        expect.objectContaining({ field: 'response_json.a.b', code: 'invalid_unicode' }),
      ]);
    }
  });
});
