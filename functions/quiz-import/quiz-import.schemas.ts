/**
 * The body of POST /quizzes/import, shared by the route and quiz-import.service.ts. Loose: a
 * body without `definition` is the survey itself, so its other keys are kept.
 */
import * as z from 'zod/mini';

export const quizImportBody = z.looseObject({
  definition: z.optional(z.unknown()),
  quiz_title: z.optional(z.string().check(z.maxLength(255))),
  category: z.optional(z.string().check(z.maxLength(100))),
  pass_threshold: z.optional(z.number().check(z.minimum(0), z.maximum(100))),
  max_attempts: z.optional(z.nullable(z.int().check(z.minimum(1), z.maximum(1000)))),
  enabled: z.optional(z.boolean()),
});

export type ImportInput = z.output<typeof quizImportBody>;
