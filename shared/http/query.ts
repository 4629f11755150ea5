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

/** An optional integer (ids, timestamps) given as a decimal string. */
export const queryInt = z.optional(
  z.pipe(
    z.string().check(z.regex(/^-?\d+$/, 'must be an integer')),
    z.transform((value: string) => Number.parseInt(value, 10)),
  ),
);

export const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 20;

/** limit 1..200 (larger values are clamped, as the real service does), default 20. */
const limit = z.pipe(
  z._default(z.string().check(z.regex(/^\d+$/, 'must be a positive integer')), String(DEFAULT_PAGE_SIZE)),
  z.pipe(
    z.transform((value: string) => Math.min(Number.parseInt(value, 10), MAX_PAGE_SIZE)),
    z.number().check(z.minimum(1, 'must be at least 1')),
  ),
);

/** offset >= 0, default 0. */
const offset = z.pipe(
  z._default(z.string().check(z.regex(/^\d+$/, 'must be a non-negative integer')), '0'),
  z.transform((value: string) => Number.parseInt(value, 10)),
);

/** The legacy `limit`/`offset` pagination of list endpoints. */
export const pagination = { limit, offset };

export type { Page } from '../db/paging.ts';
