/**
 * Schemas for query-string values, which always arrive as strings. Unknown parameters are
 * ignored (z.object strips them).
 */
import * as z from 'zod/mini';

/** A boolean flag: on when present without a value or "1"/"true", off for "0"/"false". */
export const queryFlag = z.pipe(
  z.optional(z.string()),
  z.transform((value: string | undefined) => {
    if (value === undefined) return false;
    return !['0', 'false', 'no', 'off'].includes(value.trim().toLowerCase());
  }),
);

/** An optional integer (ids, timestamps) given as a decimal string, within the safe range. */
export const queryInt = z.optional(
  z.pipe(
    z.string().check(z.regex(/^-?\d{1,16}$/, 'must be an integer')),
    z.pipe(
      z.transform((value: string) => Number.parseInt(value, 10)),
      z.number().check(z.refine(Number.isSafeInteger, 'must be a safe integer (at most 2^53 - 1)')),
    ),
  ),
);

export const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 20;
/**
 * The largest `offset` (and the largest item offset a `page` may reach): skipping costs a read
 * per skipped key, and deeper pages are reached by narrowing the query, not by paging.
 */
export const MAX_OFFSET = 100_000;

/** limit 1..200 (larger values are clamped, as the real service does), default 20. */
const limit = z.pipe(
  z._default(z.string().check(z.regex(/^\d+$/, 'must be a positive integer')), String(DEFAULT_PAGE_SIZE)),
  z.pipe(
    z.transform((value: string) => Math.min(Number.parseInt(value, 10), MAX_PAGE_SIZE)),
    z.number().check(z.minimum(1, 'must be at least 1')),
  ),
);

/** offset 0..MAX_OFFSET, default 0 (422 above); the pattern and description show in OpenAPI. */
const offset = z.pipe(
  z._default(
    z.string().check(
      z.regex(/^\d+$/, 'must be a non-negative integer'),
      z.refine((value: string) => Number(value) <= MAX_OFFSET, `must be at most ${MAX_OFFSET}`),
      z.describe(`Items to skip: 0 to ${MAX_OFFSET} (larger offsets answer 422)`),
    ),
    '0',
  ),
  z.transform((value: string) => Number.parseInt(value, 10)),
);

/** The legacy `limit`/`offset` pagination of list endpoints. */
export const pagination = { limit, offset };

export type { Page } from '../db/paging.ts';
