/**
 * HTML by tagged template with escaping that cannot be skipped: every interpolated value is escaped
 * once, here, unless it is already `SafeHtml` (another template's output, or `trustedHtml` for what
 * the wiki sanitizer produced). Lists of templates are joined. No framework: pages are server-rendered
 * strings (decision 213).
 */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Interpolated = SafeHtml | string | number | boolean | null | undefined | readonly Interpolated[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for an element's content and for a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

function render(value: Interpolated): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** `html\`<p>${text}</p>\``: the literal parts as written, every value escaped. */
export function html(strings: TemplateStringsArray, ...values: Interpolated[]): SafeHtml {
  let out = strings[0]!;
  for (let index = 0; index < values.length; index++) out += render(values[index]!) + strings[index + 1]!;
  return new SafeHtml(out);
}

/** HTML that is already safe: ONLY the wiki sanitizer's output (shared/domain/wiki-syntax). */
export function trustedHtml(sanitized: string): SafeHtml {
  return new SafeHtml(sanitized);
}
