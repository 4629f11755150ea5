/** Schemas reused across route files: path ids and common bodies. */
import * as z from 'zod/mini';

/** A positive integer id in a path segment. */
export const pathId = z.pipe(
  z.string().check(z.regex(/^\d{1,15}$/)),
  z.pipe(
    z.transform((value: string) => Number.parseInt(value, 10)),
    z.number().check(z.minimum(1)),
  ),
);

/** Path params object with the given integer ids: idParams('userid') -> { userid: number }. */
export function idParams<K extends string>(...names: K[]) {
  return z.object(Object.fromEntries(names.map((name) => [name, pathId])) as Record<K, typeof pathId>);
}

export const messageResponse = z.object({ message: z.string() });

/** `order` of legacy lists: ASC or DESC (case-insensitive). */
export const orderQuery = z.optional(
  z.pipe(
    z.string(),
    z.pipe(
      z.transform((value: string) => value.toUpperCase()),
      z.enum(['ASC', 'DESC']),
    ),
  ),
);

/**
 * Number bounds for bodies. JSON numbers reach 1e308, DynamoDB stores magnitudes between 1e-130
 * and 1e126 only, and timestamps past year 9999 are no Date: every number a route accepts is
 * bounded here, so an absurd one is a 422 on its field instead of a failed write.
 */
export const MAX_FINITE_NUMBER = 1e15;
/** Non-zero magnitudes below this are refused (DynamoDB rejects those below 1e-130). */
export const MIN_NONZERO_MAGNITUDE = 1e-9;
/** 9999-12-31T23:59:59Z in Unix seconds: the largest timestamp a body or query may name. */
export const MAX_TIMESTAMP = 253_402_300_799;

/** A finite number within ±1e15, zero or at least 1e-9 in magnitude; `min`/`max` narrow it. */
export function boundedNumber(options: { min?: number; max?: number } = {}) {
  const min = options.min ?? -MAX_FINITE_NUMBER;
  const max = options.max ?? MAX_FINITE_NUMBER;
  return z.number().check(
    z.minimum(min),
    z.maximum(max),
    z.refine(
      (value: number) => value === 0 || Math.abs(value) >= MIN_NONZERO_MAGNITUDE,
      `must be 0 or at least ${MIN_NONZERO_MAGNITUDE} in magnitude`,
    ),
  );
}

/** A Unix timestamp in seconds, 0 through year 9999. */
export const timestamp = z.int().check(z.minimum(0), z.maximum(MAX_TIMESTAMP));
/** A Unix timestamp in seconds, 1 through year 9999 (0 is "not set" on the wire). */
export const positiveTimestamp = z.int().check(z.minimum(1), z.maximum(MAX_TIMESTAMP));
