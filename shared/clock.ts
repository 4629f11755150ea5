/**
 * The clock: what time it is, in the epoch seconds every stored date uses. Apart from
 * shared/db/keys.ts (key conventions, pure) and from shared/domain (rules take the time as a
 * parameter, so they stay deterministic); decision 190.
 */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
