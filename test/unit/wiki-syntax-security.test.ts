import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { propertyRuns } from '../support/property.ts';
import {
  parseInline,
  parseWiki,
  renderHtml,
  renderInlineHtml,
  renderWiki,
  sanitizeHtml,
  type DocNode,
} from '../../shared/domain/wiki-syntax/index.ts';

const site = { siteUrl: 'http://127.0.0.1:3000' };

/** Tags and attributes the renderer may emit (the sanitizer's allow-list). */
const ALLOWED: Record<string, string[]> = {
  p: [],
  h2: [],
  h3: [],
  h4: [],
  h5: [],
  h6: [],
  strong: [],
  em: [],
  u: [],
  s: [],
  sub: [],
  sup: [],
  code: [],
  pre: [],
  ul: [],
  ol: [],
  li: [],
  br: [],
  hr: [],
  blockquote: ['class'],
  footer: [],
  figure: ['class'],
  figcaption: [],
  a: ['href', 'rel', 'target'],
  img: ['src', 'alt', 'class'],
};

function decode(value: string): string {
  return value
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&#x([0-9a-f]+);/gi, (_, code: string) => String.fromCodePoint(Number.parseInt(code, 16)))
    .replace(/&(lt|gt|quot|amp);/g, (_, name: string) => ({ lt: '<', gt: '>', quot: '"', amp: '&' })[name]!);
}

/** What a browser shows: tags removed, entities decoded. */
function visibleText(html: string): string {
  return decode(html.replace(/<[^>]*>/g, ''));
}

/**
 * The output is inert: only allowed tags with allowed, double-quoted attributes; every URL
 * attribute is http(s)/mailto after entity decoding and whitespace/control stripping; and no
 * script giveaway appears anywhere, not even in text.
 */
function expectInert(html: string): void {
  expect(html).not.toMatch(/<\s*\/?\s*(script|style|iframe|object|embed|svg|math|frame|base|link|meta|form)\b/i);
  expect(html).not.toMatch(/\son\w+\s*=/i);
  expect(html).not.toMatch(/(java|vb|live)script\s*:/i);
  expect(html).not.toMatch(/data\s*:/i);
  const tag = /<(\/?)([a-z0-9]+)((?:\s[a-z]+="[^"<>]*")*)>/g;
  for (const [, closing, name, attrs] of html.matchAll(tag)) {
    expect(Object.keys(ALLOWED)).toContain(name);
    if (closing) expect(attrs).toBe('');
    for (const [, attr, value] of attrs!.matchAll(/\s([a-z]+)="([^"]*)"/g)) {
      expect(ALLOWED[name!]).toContain(attr);
      if (attr === 'href' || attr === 'src') {
        // eslint-disable-next-line no-control-regex
        const url = decode(value!).replace(/[\u0000-\u0020\u007f-\u009f\u200b-\u200f\ufeff]/g, '');
        expect(url).toMatch(attr === 'href' ? /^(https?:\/\/|mailto:)/i : /^https?:\/\//i);
      }
    }
  }
  // Nothing that looks like markup is left outside those tags.
  expect(html.replace(tag, '')).not.toMatch(/[<>]/);
}

const hostile: Array<{ raw: string; expectLink?: boolean }> = [
  { raw: '<script>alert(1)</script>' },
  { raw: '<img src=x onerror=alert(1)>' },
  { raw: '[link|javascript:alert(1)|x]' },
  { raw: '[link|JaVaScRiPt&#58;alert(1)|x]' },
  { raw: '[link| javascript:alert(1)|x]' },
  { raw: '[link|java\tscript:alert(1)|x]' },
  { raw: '[link|&#106;avascript:alert(1)|x]' },
  { raw: '[link|data:text/html;base64,PHNjcmlwdD4=|x]' },
  { raw: '[link|vbscript:msgbox(1)|x]' },
  { raw: '[link|//evil.example|x]' },
  { raw: '[javascript:alert(1)|x]' },
  { raw: '[image|javascript:alert(1)]' },
  { raw: '[image|data:image/svg+xml,<svg onload=alert(1)>]' },
  { raw: '[[<svg onload=alert(1)>]]' },
  { raw: "'''<b onclick=x>'''" },
  { raw: '[[javascript:alert(1)]]', expectLink: true },
  { raw: 'https://example.com/javascript:alert(1)', expectLink: true },
  // Not a URL (a quote in it), so literal; the bare URL before the quote still links.
  { raw: '[link|https://example.com/"onmouseover="alert(1)|x]', expectLink: true },
  { raw: '[https://example.com|<script>alert(1)</script>]', expectLink: true },
  { raw: '[[Foo|<img src=x onerror=alert(1)>]]', expectLink: true },
  { raw: '[image|1|alt=" onerror="alert(1)|caption=<script>x</script>]' },
  { raw: '== <iframe src=javascript:alert(1)> ==' },
  { raw: '[code]\n</code></pre><script>alert(1)</script>\n[/code]' },
  { raw: '[quote|<script>alert(1)</script>|format=x onclick=y]\nq\n[/quote]' },
  { raw: "'''''<style>body{}</style>''" },
  { raw: "[[a|'''b]] c'''", expectLink: true },
  { raw: "* '''a\n** ''b\n# ~~c" },
  { raw: '[link|https://e.com|[link|https://f.com|inner]]', expectLink: true },
  { raw: '[[[[x]]]] [[ [[ ]] ]] [guide|1|[guide|2]]', expectLink: true },
  { raw: '<a href="javascript:alert(1)">x</a> &lt;script&gt; &#60;script&#62;' },
];

describe('wiki syntax: hostile input renders inert', () => {
  it.each(hostile)('$raw', ({ raw, expectLink }) => {
    const { html } = renderWiki(raw, site);
    expectInert(html);
    expectInert(renderInlineHtml(parseInline(raw), site));
    if (expectLink === undefined) expect(html).not.toContain('<a ');
  });

  it('escapes markup inside marks and neutralizes handler text', () => {
    expect(renderWiki("'''<b onclick=x>'''", site).html).toBe('<p><strong>&lt;b onclick&#61;x&gt;</strong></p>');
    expect(renderWiki('<img src=x onerror=alert(1)>', site).html).toBe('<p>&lt;img src=x onerror&#61;alert(1)&gt;</p>');
    expect(renderWiki('[link|javascript:alert(1)|x]', site).html).toBe('<p>[link|javascript&#58;alert(1)|x]</p>');
  });

  it('keeps an on-site wiki link for a title that merely looks like a scheme', () => {
    expect(renderWiki('[[javascript:alert(1)]]', site).html).toBe(
      '<p><a href="http://127.0.0.1:3000/Wiki/javascript%3Aalert(1)">javascript&#58;alert(1)</a></p>',
    );
  });
});

describe('sanitizeHtml (defense in depth over any HTML)', () => {
  const cases: Array<[string, string]> = [
    ['<script>alert(1)</script><p>ok</p>', '<p>ok</p>'],
    ['<SCRIPT src=//x.js></SCRIPT >after', 'after'],
    ['<img src=x onerror=alert(1)>', ''],
    ['<img src="data:image/png;base64,AAAA" alt="a">', ''],
    ['<a href="javascript:alert(1)" onclick="x">t</a>', '<a>t</a>'],
    ['<a href="jav&#x09;ascript:alert(1)">t</a>', '<a>t</a>'],
    ['<a href=" &#106;avascript:alert(1)">t</a>', '<a>t</a>'],
    ['<a href="JaVaScRiPt&colon;alert(1)">t</a>', '<a>t</a>'],
    [
      '<a href="https://ok.example/" target="_blank">t</a>',
      '<a href="https://ok.example/" target="_blank" rel="noopener">t</a>',
    ],
    [
      '<a href="https://ok.example/" rel="opener nofollow" target="_top">t</a>',
      '<a href="https://ok.example/" rel="nofollow">t</a>',
    ],
    ['<svg onload=alert(1)><circle/></svg>after', 'after'],
    ['<style>p{}</style><iframe src="https://x"></iframe><object data="x"></object><embed src="x">', ''],
    ['<!-- <script>alert(1)</script> --> text', ' text'],
    ['<p style="color:red" class="x" id="y">t</p>', '<p>t</p>'],
    ['<div><b>x</b></div>', 'x'],
    ['<strong>unclosed', '<strong>unclosed</strong>'],
    ['stray</p> close', 'stray close'],
    ['<p>a < b & c > d</p>', '<p>a &lt; b &amp; c &gt; d</p>'],
    ['<scr<script>ipt>alert(1)</script>', 'ipt&gt;alert(1)'],
    ['<p title="x>y">t</p>', '<p>t</p>'],
    [
      '<figure class="a b" onmouseover="x"><img src="https://e.com/a.png" alt="&quot;x"></figure>',
      '<figure class="a b"><img src="https://e.com/a.png" alt="&quot;x"></figure>',
    ],
    ['<a href="https://e.com/x?a=1&amp;b=2">q</a>', '<a href="https://e.com/x?a=1&amp;b=2">q</a>'],
  ];
  it.each(cases)('%j', (input, output) => {
    const clean = sanitizeHtml(input);
    expect(clean).toBe(output);
    expectInert(clean);
    expect(sanitizeHtml(clean)).toBe(clean);
  });
});

// ---------------------------------------------------------------- properties

/** Pieces of real and broken markup, so random strings hit every construct and its edges. */
const fragments = [
  "'",
  "''",
  "'''",
  "''''",
  "'''''",
  '++',
  '~~',
  ',,',
  '^^',
  '``',
  '[',
  ']',
  '[[',
  ']]',
  '|',
  '=',
  '==',
  '===',
  '*',
  '**',
  '#',
  '##',
  '----',
  '\n',
  '\n\n',
  '[br]',
  '[quote]',
  '[quote|Who]',
  '[/quote]',
  '[code]',
  '[/code]',
  '[link|',
  '[guide|',
  '[guide|12]',
  '[image|',
  '[image|5|size=medium|align=right|cap]',
  'https://',
  'http://example.com/x',
  'https://e.com|',
  'mailto:a@b.c',
  'javascript:',
  'JaVaScRiPt&#58;',
  'data:',
  'vbscript:',
  '&#106;',
  '&colon;',
  '<script>',
  '</script>',
  '<img src=x onerror=alert(1)>',
  '<svg onload=alert(1)>',
  'onclick=',
  ' onload = ',
  '"',
  '<',
  '>',
  '&',
  '&amp;',
  '\t',
  ' ',
  'CATEGORY:',
  'WIKI:',
  'new_window=true',
];
const soup = fc
  .array(
    fc.oneof(fc.constantFrom(...fragments), fc.string({ maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 4 })),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));
const anyText = fc.oneof(soup, fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }));

describe('wiki syntax: properties', () => {
  it('parses and renders any text without throwing, and the HTML is inert', () => {
    fc.assert(
      fc.property(anyText, (raw) => {
        const doc = parseWiki(raw);
        expect(doc.type).toBe('doc');
        const html = renderHtml(doc, site);
        expectInert(html);
        expectInert(renderInlineHtml(parseInline(raw), site));
      }),
      { numRuns: propertyRuns(250) },
    );
  });

  it('is deterministic, and the sanitizer finds nothing to change in what the renderer emits', () => {
    fc.assert(
      fc.property(anyText, (raw) => {
        const first = renderWiki(raw, site);
        const second = renderWiki(raw, site);
        expect(JSON.stringify(second.json)).toBe(JSON.stringify(first.json));
        expect(second.html).toBe(first.html);
        expect(sanitizeHtml(first.html)).toBe(first.html);
        // The tree survives a JSON round trip (it is what contents_json stores).
        expect(renderHtml(JSON.parse(JSON.stringify(first.json)) as DocNode, site)).toBe(first.html);
      }),
      { numRuns: propertyRuns(200) },
    );
  });

  it('keeps every character of text without markup, escaped', () => {
    const plain = fc.string({
      unit: fc.constantFrom(...Array.from('abcXYZ019 <>&";!?.()/\\%@{}\u00e9\u4e2d\ud83d\ude00')),
      maxLength: 120,
    });
    fc.assert(
      fc.property(plain, (raw) => {
        const html = renderWiki(raw, site).html;
        expect(visibleText(html).replace(/\s+/g, ' ').trim()).toBe(raw.replace(/\s+/g, ' ').trim());
        expect(visibleText(renderInlineHtml(parseInline(raw), site))).toBe(raw);
      }),
      { numRuns: propertyRuns(200) },
    );
  });

  it('keeps every plain word that sits among markup', () => {
    const word = fc.stringMatching(/^w[a-z0-9<>&"]{1,8}$/);
    const piece = fc.oneof(
      word.map((w) => ({ word: w })),
      fc.constantFrom(...fragments).map((f) => ({ markup: f })),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.constantFrom(' ', '\n', '\n\n'), (pieces, gap) => {
        const raw = pieces.map((p) => ('word' in p ? p.word : p.markup)).join(gap);
        const shown = visibleText(renderWiki(raw, site).html);
        for (const p of pieces) if ('word' in p) expect(shown).toContain(p.word);
      }),
      { numRuns: propertyRuns(200) },
    );
  });

  it('renders any tree (contents_json from a client) without throwing, inert', () => {
    const nasty = fc.constantFrom(
      'javascript:alert(1)',
      'JaVaScRiPt&#58;alert(1)',
      ' java\tscript:x',
      'data:text/html,<script>x</script>',
      'vbscript:x',
      '//evil.example',
      '/Guide/1',
      'https://ok.example/" onload="x',
      '&#106;avascript:x',
      '<script>alert(1)</script>',
      '" onerror="x',
    );
    const value = fc.oneof(nasty, fc.string({ maxLength: 10 }), fc.integer(), fc.boolean(), fc.constant(null));
    const mark = fc.record(
      {
        type: fc.constantFrom('bold', 'italic', 'code', 'link', 'script', 'onclick', 'underline'),
        attrs: fc.record(
          { href: value, kind: fc.constantFrom('external', 'guide', 'wiki', 'x'), newWindow: fc.boolean() },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: ['type'] },
    );
    const { node } = fc.letrec<{ node: DocNode }>((tie) => ({
      node: fc.record(
        {
          type: fc.constantFrom(
            'doc',
            'paragraph',
            'heading',
            'bullet_list',
            'ordered_list',
            'list_item',
            'horizontal_rule',
            'image',
            'hard_break',
            'text',
            'code_block',
            'blockquote',
            'script',
            'iframe',
            'div',
          ),
          attrs: fc.dictionary(
            fc.constantFrom(
              'level',
              'src',
              'alt',
              'caption',
              'align',
              'size',
              'imageid',
              'format',
              'attribution',
              'onclick',
              'href',
            ),
            value,
          ),
          text: fc.oneof(nasty, fc.string({ maxLength: 20 })),
          marks: fc.array(mark, { maxLength: 3 }),
          content: fc.array(tie('node'), { maxLength: 3, depthIdentifier: 'tree', size: 'small' }),
        },
        { requiredKeys: ['type'] },
      ) as fc.Arbitrary<DocNode>,
    }));
    fc.assert(
      fc.property(node, (tree) => {
        const html = renderHtml(tree, site);
        expectInert(html);
        expectInert(renderInlineHtml(tree.content ?? [tree], site));
        expect(sanitizeHtml(html)).toBe(html);
      }),
      { numRuns: propertyRuns(200) },
    );
  });

  it('sanitizes any HTML soup into inert, stable HTML', () => {
    const htmlBits = fc.constantFrom(
      '<p>',
      '</p>',
      '<a href="https://e.com">',
      '<a href="javascript:x">',
      '</a>',
      '<img src="https://e.com/i.png" alt="x">',
      '<img src=x onerror=alert(1)>',
      '<script>',
      '</script>',
      '<svg>',
      '<style>',
      '<!--',
      '-->',
      '<',
      '>',
      '"',
      "'",
      '=',
      '&',
      '&#58;',
      'javascript:',
      ' onclick=',
      '<strong>',
      '</strong>',
      '<div class="c">',
      '<br/>',
      '<iframe src=x>',
      'text ',
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(htmlBits, fc.string({ maxLength: 5 })), { maxLength: 30 }), (bits) => {
        const clean = sanitizeHtml(bits.join(''));
        expectInert(clean);
        expect(sanitizeHtml(clean)).toBe(clean);
      }),
      { numRuns: propertyRuns(250) },
    );
  });

  // Inert output on inputs that blow up naive parsers. No clock here (speed belongs to the bench);
  // a parser gone super-linear would run into the test timeout instead.
  it('renders pathological input inertly', () => {
    const inputs = [
      '['.repeat(20_000),
      "''a".repeat(5_000),
      '[quote]\n'.repeat(3_000),
      `${'[link|'.repeat(3_000)}]`,
      `${'*'.repeat(3_000)} x`,
    ];
    for (const raw of inputs) expectInert(renderWiki(raw, site).html);
  });
});
