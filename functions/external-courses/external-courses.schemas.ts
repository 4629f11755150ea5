/** Query of the external-courses history; the service takes its z.output. */
import * as z from 'zod/mini';
import { pagination, queryInt } from '../../shared/http/query.ts';

/** The most events in one answer: an integration reads the history in large pages. */
const MAX_HISTORY_PAGE = 1000;

/** 1..1000 (larger values are clamped, as `limit` is everywhere), default 100; a string on the wire. */
const historyLimit = z.pipe(
  z._default(z.string().check(z.regex(/^\d+$/, 'must be a positive integer')), '100'),
  z.pipe(
    z.transform((value: string) => Math.min(Number.parseInt(value, 10), MAX_HISTORY_PAGE)),
    z.number().check(z.minimum(1, 'must be at least 1')),
  ),
);

export const historyQuery = z.object({
  /** Events at or after this epoch second. */
  since: queryInt,
  /** Events before this epoch second. */
  until: queryInt,
  offset: pagination.offset,
  limit: historyLimit,
});

export type HistoryQuery = z.output<typeof historyQuery>;
