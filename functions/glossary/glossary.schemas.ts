/** Request schemas the glossary routes validate and the glossary service takes as input types (z.output). */
import * as z from 'zod/mini';

/** Each change is at most 3 writes; a transaction holds 100. */
export const MAX_GLOSSARY_CHANGES = 30;

const translation = z.object({
  langid: z.string().check(z.minLength(2), z.maxLength(10)),
  translation: z.string().check(z.minLength(1), z.maxLength(500)),
});

const entry = z.object({
  entryid: z.optional(z.int().check(z.positive())),
  term: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  translations: z.optional(z.array(translation).check(z.maxLength(50))),
  notes: z.optional(z.string().check(z.maxLength(2000))),
});

export const glossaryChangesBody = z.object({
  entries: z.optional(z.array(entry).check(z.maxLength(MAX_GLOSSARY_CHANGES))),
  delete: z.optional(z.array(z.int().check(z.positive())).check(z.maxLength(MAX_GLOSSARY_CHANGES))),
});

export type GlossaryInput = z.output<typeof glossaryChangesBody>;
