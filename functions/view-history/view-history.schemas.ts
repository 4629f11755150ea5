/** Request schemas the view-history routes validate and the service takes as input types (z.output). */
import * as z from 'zod/mini';
import { pagination, queryInt } from '../../shared/http/query.ts';

/** start_date: views on or after; end_date: views on or before (Unix seconds, inclusive). */
export const viewRangeQuery = z.object({ ...pagination, start_date: queryInt, end_date: queryInt });

export type ViewRangeQuery = z.output<typeof viewRangeQuery>;
