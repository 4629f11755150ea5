/**
 * XML rendering for clients that ask for it (Accept: application/xml or ?format=xml).
 * JSON keys become elements; keys that are not XML names (e.g. image size "140x105") become
 * `<entry key="...">`; array items become `<item>`.
 */
const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttribute(value: string): string {
  return escapeText(value).replace(/"/g, '&quot;');
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
