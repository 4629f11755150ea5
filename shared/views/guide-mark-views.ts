/**
 * A user's guides on the wire (docs/wire-fidelity.md §3.2, §3.26): authored guides are bare guide
 * summaries; favorites and completions are `[{guide: GuideSummary, date}]` (IOS reads `guide`).
 */
import * as z from 'zod/mini';
import type { GuideRecord } from '../db/entities/guide.ts';
import { guideSummaries } from './guide-page-views.ts';
import { guideSummarySchema } from './guide-views.ts';

/** A favorite or a completion: the guide and when the user marked it (Unix seconds). */
export const guideMarkSchema = z.object({ guide: guideSummarySchema, date: z.int() });

export type GuideMarkView = z.output<typeof guideMarkSchema>;

/** `[{guide, date}]` of marks in the order given (their guides' summaries read in one batch). */
export async function guideMarkViews(marks: Array<{ guide: GuideRecord; date: number }>): Promise<GuideMarkView[]> {
  const summaries = await guideSummaries(marks.map((mark) => mark.guide));
  return marks.map((mark, index) => ({ guide: summaries[index], date: mark.date }));
}
