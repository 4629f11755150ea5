/** Words a record can be found by with a prefix search: lower-cased, accents folded, unique. */
export function searchTokens(...texts: Array<string | null | undefined>): string[] {
  const tokens = new Set<string>();
  for (const text of texts) {
    if (!text) continue;
    const folded = text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase();
    for (const word of folded.split(/[^a-z0-9@._-]+/)) {
      if (word.length > 0) tokens.add(word.slice(0, 64));
    }
    const whole = folded.trim().replace(/\s+/g, ' ');
    if (whole.includes(' ')) tokens.add(whole.slice(0, 64));
  }
  return [...tokens];
}

/** The normalized form of a search term, to compare with tokens. */
export function normalizeSearchTerm(term: string): string {
  return term
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .trim()
    .replace(/\s+/g, ' ');
}
