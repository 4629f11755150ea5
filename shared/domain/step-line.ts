/**
 * A line of a step (§2.6): its bullet and level, the raw text and its rendered HTML. One shape
 * for the stored step (shared/db/entities/step.ts) and the wire (shared/views/guide-views.ts,
 * where a previewed line has no lineid yet).
 */
import * as z from 'zod/mini';

export const stepLineItemSchema = z.object({
  lineid: z.int(),
  bullet: z.string(),
  level: z.int(),
  text_raw: z.string(),
  text_rendered: z.string(),
});

export type StepLine = z.output<typeof stepLineItemSchema>;
