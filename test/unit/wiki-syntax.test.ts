import { describe, expect, it } from 'vitest';
import {
  parseInline,
  parseWiki,
  renderHtml,
  renderInlineHtml,
  renderWiki,
  wikiImageIds,
  wikiLinks,
  type DocNode,
} from '../../shared/domain/wiki-syntax/index.ts';

/** The text a browser shows: tags removed, the entities our escaping produces decoded. */
function visibleText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&(lt|gt|quot|amp);/g, (_, name: string) => ({ lt: '<', gt: '>', quot: '"', amp: '&' })[name]!);
}

/** Library images by id: their URLs name the guid (decision 197). */
const GUIDS = new Map([
  [42, '2f6c0a9e4b8d4e1f9a3c5b7d1e0f2a44'],
  [7, '7a1b2c3d4e5f40718293a4b5c6d7e8f9'],
  [3, '3c3c3c3c3c3c43c3c3c3c3c3c3c3c3c3'],
]);
const site = { siteUrl: 'http://127.0.0.1:3000', imageGuids: GUIDS };
const S = site.siteUrl;

const text = (value: string, ...marks: DocNode['marks'] & object): DocNode =>
  marks.length > 0 ? { type: 'text', text: value, marks } : { type: 'text', text: value };
const p = (...content: DocNode[]): DocNode => ({ type: 'paragraph', content });
const item = (...content: DocNode[]): DocNode => ({ type: 'list_item', content });
const bold = { type: 'bold' };
const italic = { type: 'italic' };
const link = (href: string, kind: string, target: string | number, extra: Record<string, unknown> = {}) => ({
  type: 'link',
  attrs: { href, kind, target, ...extra },
});

/** raw → the doc's content → the HTML. */
const blockCases: Array<{ name: string; raw: string; json: DocNode[]; html: string }> = [
  { name: 'empty text', raw: '', json: [], html: '' },
  { name: 'plain paragraph', raw: 'Hello world', json: [p(text('Hello world'))], html: '<p>Hello world</p>' },
  {
    name: 'paragraphs split by blank lines, single newlines kept as soft breaks',
    raw: 'one\ntwo\n\n\nthree',
    json: [p(text('one\ntwo')), p(text('three'))],
    html: '<p>one\ntwo</p>\n<p>three</p>',
  },
  { name: 'CRLF line endings', raw: 'a\r\n\r\nb', json: [p(text('a')), p(text('b'))], html: '<p>a</p>\n<p>b</p>' },
  {
    name: 'h2',
    raw: '== Tools ==',
    json: [{ type: 'heading', attrs: { level: 2 }, content: [text('Tools')] }],
    html: '<h2>Tools</h2>',
  },
  {
    name: 'h3',
    raw: '=== Parts ===',
    json: [{ type: 'heading', attrs: { level: 3 }, content: [text('Parts')] }],
    html: '<h3>Parts</h3>',
  },
  {
    name: 'h4',
    raw: '====Notes====',
    json: [{ type: 'heading', attrs: { level: 4 }, content: [text('Notes')] }],
    html: '<h4>Notes</h4>',
  },
  {
    name: 'h6',
    raw: '====== Six ======',
    json: [{ type: 'heading', attrs: { level: 6 }, content: [text('Six')] }],
    html: '<h6>Six</h6>',
  },
  {
    name: 'heading with marks',
    raw: "== '''Bold''' ''Italic'' ==",
    json: [{ type: 'heading', attrs: { level: 2 }, content: [text('Bold', bold), text(' '), text('Italic', italic)] }],
    html: '<h2><strong>Bold</strong> <em>Italic</em></h2>',
  },
  {
    name: 'heading interrupts a paragraph',
    raw: 'intro\n== Next ==\nbody',
    json: [p(text('intro')), { type: 'heading', attrs: { level: 2 }, content: [text('Next')] }, p(text('body'))],
    html: '<p>intro</p>\n<h2>Next</h2>\n<p>body</p>',
  },
  {
    // ("one =" gets its "=" entity-encoded: text that reads like on<word>= never appears verbatim.)
    name: 'level-1 and mismatched headings stay text',
    raw: '= Level one =\n== Two ===',
    json: [p(text('= Level one =\n== Two ==='))],
    html: '<p>= Level one &#61;\n== Two ===</p>',
  },
  {
    name: 'horizontal rule',
    raw: 'a\n----\nb',
    json: [p(text('a')), { type: 'horizontal_rule' }, p(text('b'))],
    html: '<p>a</p>\n<hr>\n<p>b</p>',
  },
  { name: 'bold', raw: "'''x'''", json: [p(text('x', bold))], html: '<p><strong>x</strong></p>' },
  { name: 'italic', raw: "''x''", json: [p(text('x', italic))], html: '<p><em>x</em></p>' },
  {
    name: 'bold italic',
    raw: "'''''x'''''",
    json: [p(text('x', bold, italic))],
    html: '<p><strong><em>x</em></strong></p>',
  },
  {
    name: 'overlapping bold and italic',
    raw: "'''a ''b''' c''",
    json: [p(text('a ', bold), text('b', bold, italic), text(' c', italic))],
    html: '<p><strong>a <em>b</em></strong><em> c</em></p>',
  },
  {
    name: 'four quotes: an apostrophe, then bold',
    raw: "''''x'''",
    json: [p(text("'"), text('x', bold))],
    html: '<p>&#39;<strong>x</strong></p>',
  },
  { name: 'underline', raw: '++u++', json: [p(text('u', { type: 'underline' }))], html: '<p><u>u</u></p>' },
  { name: 'strikethrough', raw: '~~s~~', json: [p(text('s', { type: 'strike' }))], html: '<p><s>s</s></p>' },
  {
    name: 'subscript',
    raw: 'H,,2,,O',
    json: [p(text('H'), text('2', { type: 'subscript' }), text('O'))],
    html: '<p>H<sub>2</sub>O</p>',
  },
  {
    name: 'superscript',
    raw: 'x^^2^^',
    json: [p(text('x'), text('2', { type: 'superscript' }))],
    html: '<p>x<sup>2</sup></p>',
  },
  {
    name: 'inline code is literal inside',
    raw: "run ``npm '''test'''`` now",
    json: [p(text('run '), text("npm '''test'''", { type: 'code' }), text(' now'))],
    html: '<p>run <code>npm &#39;&#39;&#39;test&#39;&#39;&#39;</code> now</p>',
  },
  {
    name: 'delimiters next to spaces do not pair (C++)',
    raw: 'C++ and C++',
    json: [p(text('C++ and C++'))],
    html: '<p>C++ and C++</p>',
  },
  {
    name: 'hard break [br] (its newline belongs to it)',
    raw: 'line one[br]\nline two',
    json: [p(text('line one'), { type: 'hard_break' }, text('line two'))],
    html: '<p>line one<br>line two</p>',
  },
  {
    name: 'bullet list with nesting',
    raw: '* one\n** one.one\n* two',
    json: [
      {
        type: 'bullet_list',
        content: [
          item(p(text('one')), { type: 'bullet_list', content: [item(p(text('one.one')))] }),
          item(p(text('two'))),
        ],
      },
    ],
    html: '<ul><li>one<ul><li>one.one</li></ul></li><li>two</li></ul>',
  },
  {
    name: 'numbered list with nesting',
    raw: '# first\n## sub\n# second',
    json: [
      {
        type: 'ordered_list',
        attrs: { order: 1 },
        content: [
          item(p(text('first')), { type: 'ordered_list', attrs: { order: 1 }, content: [item(p(text('sub')))] }),
          item(p(text('second'))),
        ],
      },
    ],
    html: '<ol><li>first<ol><li>sub</li></ol></li><li>second</li></ol>',
  },
  {
    name: 'bullets under a numbered item (iFixit writes ** there; #* also works)',
    raw: '# step\n** detail\n#* other',
    json: [
      {
        type: 'ordered_list',
        attrs: { order: 1 },
        content: [
          item(p(text('step')), { type: 'bullet_list', content: [item(p(text('detail'))), item(p(text('other')))] }),
        ],
      },
    ],
    html: '<ol><li>step<ul><li>detail</li><li>other</li></ul></li></ol>',
  },
  {
    name: 'a level jump is one level deeper',
    raw: '* a\n*** c',
    json: [
      { type: 'bullet_list', content: [item(p(text('a')), { type: 'bullet_list', content: [item(p(text('c')))] })] },
    ],
    html: '<ul><li>a<ul><li>c</li></ul></li></ul>',
  },
  {
    name: 'kind change at the top level starts a new list',
    raw: '* a\n# b',
    json: [
      { type: 'bullet_list', content: [item(p(text('a')))] },
      { type: 'ordered_list', attrs: { order: 1 }, content: [item(p(text('b')))] },
    ],
    html: '<ul><li>a</li></ul>\n<ol><li>b</li></ol>',
  },
  {
    name: 'list item continued after [br]; a plain line ends the list',
    raw: '* a[br]\nmore\nafter',
    json: [
      { type: 'bullet_list', content: [item(p(text('a'), { type: 'hard_break' }, text('more')))] },
      p(text('after')),
    ],
    html: '<ul><li>a<br>more</li></ul>\n<p>after</p>',
  },
  {
    name: 'markers need a space (#hashtag)',
    raw: '#hashtag *star',
    json: [p(text('#hashtag *star'))],
    html: '<p>#hashtag *star</p>',
  },
  {
    name: 'external link [link|url|text]',
    raw: '[link|https://example.com|Example]',
    json: [p(text('Example', link('https://example.com', 'external', 'https://example.com')))],
    html: '<p><a href="https://example.com" rel="nofollow noopener">Example</a></p>',
  },
  {
    name: 'external link without text shows the URL',
    raw: '[link|https://example.com/a?b=1&c=2]',
    json: [
      p(
        text(
          'https://example.com/a?b=1&c=2',
          link('https://example.com/a?b=1&c=2', 'external', 'https://example.com/a?b=1&c=2'),
        ),
      ),
    ],
    html:
      '<p><a href="https://example.com/a?b=1&amp;c=2" rel="nofollow ' +
      'noopener">https://example.com/a?b=1&amp;c=2</a></p>',
  },
  {
    name: "iFixit's [url|text|new_window=true] form",
    raw: '[https://ifixit.com|iFixit|new_window=true]',
    json: [p(text('iFixit', link('https://ifixit.com', 'external', 'https://ifixit.com', { newWindow: true })))],
    html: '<p><a href="https://ifixit.com" rel="nofollow noopener" target="_blank">iFixit</a></p>',
  },
  {
    name: 'mailto link',
    raw: '[mailto:help@example.com|Mail us]',
    json: [p(text('Mail us', link('mailto:help@example.com', 'external', 'mailto:help@example.com')))],
    html: '<p><a href="mailto:help@example.com" rel="nofollow noopener">Mail us</a></p>',
  },
  {
    name: 'bare URL, trailing punctuation left out',
    raw: 'See https://example.com/a_(b). Done',
    json: [
      p(
        text('See '),
        text('https://example.com/a_(b)', link('https://example.com/a_(b)', 'external', 'https://example.com/a_(b)')),
        text('. Done'),
      ),
    ],
    html: '<p>See <a href="https://example.com/a_(b)" rel="nofollow noopener">https://example.com/a_(b)</a>. Done</p>',
  },
  {
    name: 'link text with marks',
    raw: "[link|https://e.com|'''bold''' text]",
    json: [
      p(
        text('bold', link('https://e.com', 'external', 'https://e.com'), bold),
        text(' text', link('https://e.com', 'external', 'https://e.com')),
      ),
    ],
    html: '<p><a href="https://e.com" rel="nofollow noopener"><strong>bold</strong> text</a></p>',
  },
  {
    name: 'guide link',
    raw: '[guide|123]',
    json: [p(text('Guide 123', link('/Guide/123', 'guide', 123)))],
    html: `<p><a href="${S}/Guide/123">Guide 123</a></p>`,
  },
  {
    name: 'guide link with text',
    raw: '[guide|123|Replace the battery]',
    json: [p(text('Replace the battery', link('/Guide/123', 'guide', 123)))],
    html: `<p><a href="${S}/Guide/123">Replace the battery</a></p>`,
  },
  {
    name: 'wiki link',
    raw: '[[Battery Care]]',
    json: [p(text('Battery Care', link('/Wiki/Battery_Care', 'wiki', 'WIKI:Battery Care')))],
    html: `<p><a href="${S}/Wiki/Battery_Care">Battery Care</a></p>`,
  },
  {
    name: 'wiki link with text; underscores read as spaces',
    raw: '[[Battery_Care|care tips]]',
    json: [p(text('care tips', link('/Wiki/Battery_Care', 'wiki', 'WIKI:Battery Care')))],
    html: `<p><a href="${S}/Wiki/Battery_Care">care tips</a></p>`,
  },
  {
    name: 'namespaced wiki links',
    raw: '[[CATEGORY:iPhone 6]] [[WIKI:Glossary]] [[course:Safety 101#Part 2]]',
    json: [
      p(
        text('iPhone 6', link('/c/iPhone_6', 'wiki', 'CATEGORY:iPhone 6')),
        text(' '),
        text('Glossary', link('/Wiki/Glossary', 'wiki', 'WIKI:Glossary')),
        text(' '),
        text('Safety 101', link('/Course/Safety_101#Part_2', 'wiki', 'COURSE:Safety 101')),
      ),
    ],
    html:
      `<p><a href="${S}/c/iPhone_6">iPhone 6</a> <a href="${S}/Wiki/Glossary">Glossary</a> <a ` +
      `href="${S}/Course/Safety_101#Part_2">Safety 101</a></p>`,
  },
  {
    name: 'titles are url-encoded; an unknown prefix stays part of a WIKI title',
    raw: '[[Ça & ça?]] [[Foo:Bar]]',
    json: [
      p(
        text('Ça & ça?', link('/Wiki/%C3%87a_%26_%C3%A7a%3F', 'wiki', 'WIKI:Ça & ça?')),
        text(' '),
        text('Foo:Bar', link('/Wiki/Foo%3ABar', 'wiki', 'WIKI:Foo:Bar')),
      ),
    ],
    html:
      `<p><a href="${S}/Wiki/%C3%87a_%26_%C3%A7a%3F">Ça &amp; ça?</a> <a ` +
      `href="${S}/Wiki/Foo%3ABar">Foo:Bar</a></p>`,
  },
  {
    name: 'image by id, its own block',
    raw: '[image|42|size=medium|align=right|The back cover]',
    json: [
      {
        type: 'image',
        attrs: {
          src: null,
          imageid: 42,
          size: 'medium',
          align: 'right',
          alt: 'The back cover',
          caption: 'The back cover',
        },
      },
    ],
    html:
      `<figure class="wiki-image size-medium align-right"><img src="${S}/igi/${GUIDS.get(42)}.medium" alt="The back ` +
      `cover"><figcaption>The back cover</figcaption></figure>`,
  },
  {
    name: 'image by URL with defaults',
    raw: '[image|https://cdn.example.com/a.jpg]',
    json: [
      {
        type: 'image',
        attrs: {
          src: 'https://cdn.example.com/a.jpg',
          imageid: null,
          size: 'standard',
          align: 'none',
          alt: '',
          caption: null,
        },
      },
    ],
    html:
      '<figure class="wiki-image size-standard align-none"><img src="https://cdn.example.com/a.jpg" ' +
      'alt=""></figure>',
  },
  {
    name: 'image inside a paragraph splits it',
    raw: 'before [image|7|alt=Seven] after',
    json: [
      p(text('before ')),
      {
        type: 'image',
        attrs: { src: null, imageid: 7, size: 'standard', align: 'none', alt: 'Seven', caption: null },
      },
      p(text(' after')),
    ],
    html:
      `<p>before </p>\n<figure class="wiki-image size-standard align-none">` +
      `<img src="${S}/igi/${GUIDS.get(7)}.standard" alt="Seven"></figure>\n<p> after</p>`,
  },
  {
    name: 'blockquote with attribution',
    raw: '[quote|Abraham Lincoln]\nThis is a quote.\n[/quote]',
    json: [
      {
        type: 'blockquote',
        attrs: { attribution: 'Abraham Lincoln', format: null },
        content: [p(text('This is a quote.'))],
      },
    ],
    html: '<blockquote><p>This is a quote.</p><footer>Abraham Lincoln</footer></blockquote>',
  },
  {
    name: 'nested blockquote with format',
    raw: '[quote|format=featured]\n[quote]\ninner\n[/quote]\n[/quote]',
    json: [
      {
        type: 'blockquote',
        attrs: { attribution: null, format: 'featured' },
        content: [{ type: 'blockquote', attrs: { attribution: null, format: null }, content: [p(text('inner'))] }],
      },
    ],
    html: '<blockquote class="quote-featured"><blockquote><p>inner</p></blockquote></blockquote>',
  },
  {
    name: 'code block keeps markup literal',
    raw: "[code]\nif (a < b) '''x'''\n[/code]",
    json: [{ type: 'code_block', content: [text("if (a < b) '''x'''")] }],
    html: '<pre><code>if (a &lt; b) &#39;&#39;&#39;x&#39;&#39;&#39;</code></pre>',
  },
];

/** Markup that does not parse stays literal text. */
const literalCases = [
  "'''unclosed bold",
  "''unclosed italic",
  '[link|not a url|x]',
  '[link|ftp://example.com|x]',
  '[link|https://|x]',
  '[guide|abc]',
  '[guide|0]',
  '[guide|-3|x]',
  '[image|abc]',
  '[image|ftp://x/y.png]',
  '[[]]',
  '[[a|b]',
  '[[x{y}]]',
  '[unknown|thing]',
  '[br|x]',
  '[quote]\nnever closed',
  '[code]\nnever closed',
  '[/quote]',
  '``',
  '[[CATEGORY:]]',
  '[guide|12\n|broken across lines]',
];

describe('wiki syntax: block documents', () => {
  it.each(blockCases)('$name', ({ raw, json, html }) => {
    const doc = parseWiki(raw);
    expect(doc).toEqual({ type: 'doc', content: json });
    expect(renderHtml(doc, site)).toBe(html);
    expect(renderWiki(raw, site)).toEqual({ json: doc, html });
  });

  it.each(literalCases)('degrades to literal text: %j', (raw) => {
    const html = renderWiki(raw, site).html;
    expect(visibleText(html).replace(/\s+/g, '')).toBe(raw.replace(/\s+/g, ''));
    expect(html).not.toContain('<a ');
  });

  it('resolves site paths against a siteUrl given with a trailing slash', () => {
    expect(renderWiki('[guide|5]', { siteUrl: 'https://docs.example.com/' }).html).toBe(
      '<p><a href="https://docs.example.com/Guide/5">Guide 5</a></p>',
    );
  });
});

describe('wiki syntax: library images by guid (decision 197)', () => {
  it('lists the image ids a tree names, and leaves out an image whose guid the caller did not give', () => {
    const raw = 'a [image|3|size=thumbnail] b\n\n[image|42|size=original]\n\n[image|99]';
    const { json } = renderWiki(raw, site);
    expect(wikiImageIds(json)).toEqual([3, 42, 99]);
    const html = renderHtml(json, site);
    expect(html).toContain(`src="${S}/igi/${GUIDS.get(3)}.thumbnail"`);
    // The original has no suffix, as the Image object's `original`.
    expect(html).toContain(`src="${S}/igi/${GUIDS.get(42)}"`);
    expect(html).not.toMatch(/\/igi\/\d+[."]/);
    expect(renderHtml(json, { siteUrl: S })).not.toContain('<img');
  });
});

describe('wiki syntax: inline (step lines)', () => {
  const cases: Array<{ raw: string; html: string }> = [
    { raw: "Remove the '''two''' 3.4 mm screws.", html: 'Remove the <strong>two</strong> 3.4 mm screws.' },
    { raw: 'See [guide|12|the battery guide].', html: `See <a href="${S}/Guide/12">the battery guide</a>.` },
    { raw: '== not a heading ==', html: '== not a heading ==' },
    { raw: '* not a list', html: '* not a list' },
    { raw: 'a[br]b', html: 'a<br>b' },
    {
      raw: 'x [image|3|size=thumbnail] y',
      html: `x <img src="${S}/igi/${GUIDS.get(3)}.thumbnail" alt="" class="wiki-image size-thumbnail align-none"> y`,
    },
  ];
  it.each(cases)('$raw', ({ raw, html }) => {
    expect(renderInlineHtml(parseInline(raw), site)).toBe(html);
  });

  it('returns inline nodes only', () => {
    expect(parseInline("a '''b'''")).toEqual([text('a '), text('b', bold)]);
    expect(parseInline('')).toEqual([]);
  });
});

describe('wiki syntax: wikiLinks', () => {
  it('lists each linked guide and wiki once, in order', () => {
    const doc = parseWiki(
      '[guide|12] [[Battery]]\n* [[CATEGORY:iPhone_6|phone]] [guide|12|again]\n[link|https://e.com|x] ' +
        '[[Battery|again]] [guide|7]',
    );
    expect(wikiLinks(doc)).toEqual([
      { kind: 'guide', target: 12 },
      { kind: 'wiki', target: 'WIKI:Battery' },
      { kind: 'wiki', target: 'CATEGORY:iPhone 6' },
      { kind: 'guide', target: 7 },
    ]);
    expect(wikiLinks(parseWiki('no links here'))).toEqual([]);
  });
});

describe('wiki syntax: rendering trees from elsewhere (contents_json)', () => {
  it('renders a ProseMirror-style tree and skips what it does not know', () => {
    const doc: DocNode = {
      type: 'doc',
      content: [
        { type: 'heading', attrs: { level: 9 }, content: [text('Clamped')] },
        {
          type: 'paragraph',
          content: [text('x', { type: 'blink' }, bold), { type: 'mystery', content: [text('kept')] }],
        },
        text('stray inline'),
        { type: 'table', content: [p(text('cell'))] },
        { type: 'image', attrs: { src: 'https://e.com/i.png', size: 'giant', align: 'sideways', alt: 'i' } },
      ],
    };
    expect(renderHtml(doc, site)).toBe(
      '<h6>Clamped</h6>\n<p><strong>x</strong>kept</p>\n<p>stray inline</p>\n<p>cell</p>\n' +
        '<figure class="wiki-image size-standard align-none"><img src="https://e.com/i.png" alt="i"></figure>',
    );
  });

  it('survives absurd nesting without a stack overflow', () => {
    let node: DocNode = text('deep');
    for (let k = 0; k < 50_000; k += 1) node = { type: 'blockquote', content: [node] };
    expect(() => renderHtml({ type: 'doc', content: [node] }, site)).not.toThrow();
    expect(() => wikiLinks(node)).not.toThrow();
  });
});
