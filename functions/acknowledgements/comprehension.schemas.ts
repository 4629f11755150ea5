/** Request schemas of comprehension quizzes and declines (docs/competency.md "Comprehension and decline"). */
import * as z from 'zod/mini';

export const comprehensionBody = z.object({
  /** The quiz to pass before signing; null unties it. */
  quizid: z.nullable(z.int().check(z.positive())),
});
export type ComprehensionInput = z.output<typeof comprehensionBody>;

export const declineBody = z.object({
  /** Why the person does not sign (a question, an error in the document): for the document's owner. */
  comment: z.string().check(z.trim(), z.minLength(1), z.maxLength(2000)),
});
export type DeclineInput = z.output<typeof declineBody>;
