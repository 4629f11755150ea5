/** The query of GET /search/{query} (docs/search.md). */
import * as z from 'zod/mini';
import { pagination } from '../../shared/http/query.ts';
import { SEARCH_FILTERS } from '../../shared/read-models/search.ts';

const filterList = z.optional(
  z.pipe(
    z.string().check(z.maxLength(200)),
    z.pipe(
      z.transform((value: string) =>
        value
          .split(',')
          .map((part) => part.trim().toLowerCase())
          .filter((part) => part !== ''),
      ),
      z.array(z.enum(SEARCH_FILTERS)),
    ),
  ),
);

export const searchParams = z.object({ query: z.string().check(z.minLength(1), z.maxLength(200)) });

export const searchQuery = z.object({
  filter: filterList,
  limit: pagination.limit,
  offset: pagination.offset,
  /** The language searched (a guide's or page's `langid`), default en. */
  langid: z._default(z.string().check(z.regex(/^[a-z]{2}(-[a-z]{2,4})?$/i, 'must be a language code')), 'en'),
});

export type SearchQueryInput = z.output<typeof searchQuery>;
