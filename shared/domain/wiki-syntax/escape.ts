/**
 * HTML escaping for text and attribute values, and the entity decoding the sanitizer and the
 * URL checks need.
 *
 * Besides the five markup characters, escapeHtml entity-encodes the `:` of `javascript:`-like
 * words and the `=` after `on<word>`. A browser shows exactly the same characters, but no naive
 * substring scan (a log filter, a downstream client that unescapes text into an attribute) can
 * find a script scheme or an event-handler assignment anywhere in our output.
 */

const MARKUP: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return neutralize(text.replace(/[&<>"']/g, (c) => MARKUP[c]!));
}

/** Entity-encodes the giveaways of script URLs and handler attributes; safe on escaped HTML text. */
export function neutralize(escaped: string): string {
  return escaped.replace(/(script|data)(\s*):/gi, '$1$2&#58;').replace(/(on\w+)(\s*)=/gi, '$1$2&#61;');
}

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  colon: ':',
  semi: ';',
  sol: '/',
  bsol: '\\',
  lpar: '(',
  rpar: ')',
  period: '.',
  comma: ',',
  excl: '!',
  quest: '?',
  equals: '=',
  num: '#',
  percnt: '%',
  Tab: '\t',
  NewLine: '\n',
  nbsp: '\u00a0',
  grave: '`',
  lsqb: '[',
  rsqb: ']',
};

/**
 * Decodes entities once, as a browser decodes an attribute value: numeric ones (with or without
 * the `;`) and the named ones an attacker uses to hide a scheme. Unknown names stay as they are,
 * so a decoded value can only look *less* like an allowed URL than it is, never more.
 */
export function decodeEntities(value: string): string {
  return value.replace(/&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,7})|([A-Za-z]{2,8}));?/g, (whole, dec, hex, name) => {
    if (dec !== undefined || hex !== undefined) {
      const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex, 16);
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : '\ufffd';
    }
    return Object.hasOwn(NAMED, name) && whole.endsWith(';') ? NAMED[name]! : whole;
  });
}
