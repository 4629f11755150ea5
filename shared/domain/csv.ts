/**
 * CSV answers (RFC 4180, CRLF lines): a field with a comma, quote or line break is quoted with
 * its quotes doubled; a text cell a spreadsheet would read as a formula (starting with = + - @,
 * a tab or a carriage return) is prefixed with a quote, so it stays text (CSV injection).
 */
export function csvField(value: unknown): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A header line and one line per row, the columns in order. */
export function csvDocument(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  const lines = [columns.join(','), ...rows.map((row) => columns.map((column) => csvField(row[column])).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}
