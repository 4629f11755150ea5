/**
 * Query values of the newer list endpoints (courses, course assignees): 1-based `page`, a page
 * size (`pageSize` or `limit`, clamped to 200 like the legacy `limit`) and `direction`
 * ASC/DESC (case-insensitive). Wire notes §1.5: they answer in a named envelope.
 */
import * as z from 'zod/mini';
import { MAX_OFFSET, MAX_PAGE_SIZE } from './query.ts';

const positive = (fallback: number, max = Number.MAX_SAFE_INTEGER) =>
  z.pipe(
    z._default(z.string().check(z.regex(/^\d{1,9}$/, 'must be a positive integer')), String(fallback)),
    z.pipe(
      z.transform((value: string) => Math.min(Number.parseInt(value, 10), max)),
      z.number().check(z.minimum(1, 'must be at least 1')),
    ),
  );

/** 1-based page number, default 1; its first item may not lie past MAX_OFFSET (pageWithinMaxOffset). */
export const pageNumber = positive(1);

/** A page size with its default, clamped to 200. */
export const pageSize = (fallback: number) => positive(fallback, MAX_PAGE_SIZE);

/**
 * A check for the whole query object: the page may not start past MAX_OFFSET items, the same
 * bound as the legacy `offset` (422 on `page`). `sizeKey` names the page-size parameter.
 */
export function pageWithinMaxOffset<K extends string>(sizeKey: K) {
  return z.refine<{ page: number } & Record<K, number>>((query) => (query.page - 1) * query[sizeKey] <= MAX_OFFSET, {
    message: `must not start past item ${MAX_OFFSET}`,
    path: ['page'],
  });
}

/** ASC (default) or DESC, any case. */
export const direction = z.pipe(
  z._default(z.string(), 'ASC'),
  z.pipe(
    z.transform((value: string) => value.toUpperCase()),
    z.enum(['ASC', 'DESC']),
  ),
);

/** An enum given in any case, with a default. */
export function enumQuery<const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) {
  return z.pipe(
    z._default(z.string(), fallback),
    z.pipe(
      z.transform((value: string) => value.toLowerCase()),
      z.enum(values),
    ),
  );
}
