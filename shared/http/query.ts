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

/** The most a "whole list" page holds (glossary entries, team members). */
export const WHOLE_LIST_PAGE_SIZE = 1000;

/**
 * `limit`/`offset` of the lists the real service returns whole ("Returns all entries"; a team's
 * members): limit 1..1000 (larger values clamped), default 1000.
 */
export const wholeListQuery = z.object({
  limit: z.pipe(
    z._default(z.string().check(z.regex(/^\d+$/)), String(WHOLE_LIST_PAGE_SIZE)),
    z.pipe(
      z.transform((value: string) => Math.min(Number(value), WHOLE_LIST_PAGE_SIZE)),
      z.number().check(z.minimum(1)),
    ),
  ),
  offset,
});

/**
 * The largest list answered whole (decision 194). The real service lets a few lists the apps
 * read in one request go past 200: the offline syncer reads GET /user/favorites/guides without a
 * limit and deletes every offline guide missing from that one answer; other screens send
 * `limit=10000` (/user/guides), `limit=100000` (/categories/all), `limit=1000` (/user/media/images)
 * and never page. Those routes use wholeListPagination; every other list keeps MAX_PAGE_SIZE.
 */
export const MAX_WHOLE_LIST = 10_000;

/**
 * `limit`/`offset` of a list the apps read in one answer: `limit` clamped to MAX_WHOLE_LIST
 * instead of 200, defaulting to `defaultLimit` (MAX_WHOLE_LIST where the apps send none).
 */
export function wholeListPagination(defaultLimit: number) {
  const wholeLimit = z.pipe(
    z._default(z.string().check(z.regex(/^\d+$/, 'must be a positive integer')), String(defaultLimit)),
    z.pipe(
      z.transform((value: string) => Math.min(Number.parseInt(value, 10), MAX_WHOLE_LIST)),
      z.number().check(z.minimum(1, 'must be at least 1')),
    ),
  );
  return { limit: wholeLimit, offset };
}

export type { Page } from '../db/paging.ts';
