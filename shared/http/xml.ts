/**
 * XML rendering for clients that ask for it (Accept: application/xml or ?format=xml).
 * JSON keys become elements; keys that are not XML names (e.g. image size "140x105") become
 * `<entry key="...">`; array items become `<item>`.
 *
 * XML 1.0 has no way to carry most C0 control characters (U+0000-U+001F other than tab, line
 * feed and carriage return), nor U+FFFE/U+FFFF or a lone surrogate, not even as a character
 * reference. Stored text may hold them (JSON carries them), so each is replaced by U+FFFD, the
 * replacement character: the document stays well-formed and the reader sees that something was
 * there (docs/hostile-input.md). JSON answers carry the text unchanged.
 */
const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Everything XML 1.0's `Char` production leaves out. */
const NOT_XML_CHAR = new RegExp(
  [
    '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uFFFE\\uFFFF]', // C0 but tab, LF, CR; two non-characters
    '[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])', // a high surrogate without its low half
    '(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]', // a low surrogate without its high half
  ].join('|'),
  'g',
);

/** The text with every character XML 1.0 cannot carry replaced by U+FFFD. */
export function xmlSafeText(value: string): string {
  return value.replace(NOT_XML_CHAR, '\uFFFD');
}

function escapeText(value: string): string {
  // A carriage return as a reference: a parser would turn a CR LF pair into one line feed.
  return xmlSafeText(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;');
}

function escapeAttribute(value: string): string {
  // Tab and line feed as references: a parser would fold them to spaces in an attribute.
  return escapeText(value).replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;');
}

function element(name: string, value: unknown): string {
  const open = NAME.test(name) ? name : `entry key="${escapeAttribute(name)}"`;
  const close = NAME.test(name) ? name : 'entry';
  if (value === null || value === undefined) return `<${open}/>`;
  if (Array.isArray(value)) return `<${open}>${value.map((item) => element('item', item)).join('')}</${close}>`;
  if (typeof value === 'object') {
    const children = Object.entries(value as Record<string, unknown>)
      .map(([key, child]) => element(key, child))
      .join('');
    return `<${open}>${children}</${close}>`;
  }
  return `<${open}>${escapeText(String(value))}</${close}>`;
}

export function toXml(body: unknown): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element('response', body)}`;
}
