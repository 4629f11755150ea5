/**
 * A user's guides on the wire (docs/wire-fidelity.md §3.2, §3.26): authored guides are bare guide
 * summaries; favorites and completions are `[{guide: GuideSummary, date}]` (IOS reads `guide`).
 */
import * as z from 'zod/mini';
import { guideSummarySchema } from './guide-views.ts';

/** A favorite or a completion: the guide and when the user marked it (Unix seconds). */
export const guideMarkSchema = z.object({ guide: guideSummarySchema, date: z.int() });

export type GuideMarkView = z.output<typeof guideMarkSchema>;
