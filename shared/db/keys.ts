/**
 * Key-building conventions shared by the entity files. Numeric ids are zero-padded in sort
 * keys so that string order is numeric order.
 */
export function padId(id: number): string {
  return String(id).padStart(12, '0');
}

/** Strips the key attributes from a stored item, leaving the entity's own fields. */
export function withoutKeys<T extends Record<string, unknown>>(
  item: T,
): Omit<T, 'pk' | 'sk' | 'gsi1pk' | 'gsi1sk' | 'gsi2pk' | 'gsi2sk' | 'entity' | 'ttl'> {
  const { pk, sk, gsi1pk, gsi1sk, gsi2pk, gsi2sk, entity, ttl, ...rest } = item;
  return rest;
}
