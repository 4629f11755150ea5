/** Query of the external-courses history; the service takes its z.output. */
import * as z from 'zod/mini';

const epoch = z.optional(z.coerce.number().check(z.int(), z.nonnegative()));

export const historyQuery = z.object({
  /** Events at or after this epoch second. */
  since: epoch,
  /** Events before this epoch second. */
  until: epoch,
  offset: z._default(z.coerce.number().check(z.int(), z.nonnegative()), 0),
  limit: z._default(z.coerce.number().check(z.int(), z.positive(), z.maximum(1000)), 100),
});

export type HistoryQuery = z.output<typeof historyQuery>;
