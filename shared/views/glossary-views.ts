/**
 * A translation glossary entry (beyond the recorded wire facts, §3.27): a term in the site's
 * first language (`langid`) and its translations into the other site languages.
 */
import * as z from 'zod/mini';
import type { GlossaryEntryRecord } from '../db/entities/glossary.ts';

export const glossaryEntrySchema = z.object({
  entryid: z.int(),
  term: z.string(),
  langid: z.string(),
  translations: z.array(z.object({ langid: z.string(), translation: z.string() })),
  notes: z.string(),
  created_date: z.int(),
  modified_date: z.int(),
});

/** PUT /translation_glossary/entries: the entries added or changed, and the entryids deleted. */
export const glossaryChangesSchema = z.object({ saved: z.array(glossaryEntrySchema), deleted: z.array(z.int()) });

export type GlossaryEntryView = z.output<typeof glossaryEntrySchema>;
export type GlossaryChangesView = z.output<typeof glossaryChangesSchema>;

export function glossaryEntryView(entry: GlossaryEntryRecord): GlossaryEntryView {
  return {
    entryid: entry.entryid,
    term: entry.term,
    langid: entry.langid,
    translations: entry.translations.map(({ langid, translation }) => ({ langid, translation })),
    notes: entry.notes,
    created_date: entry.created_date,
    modified_date: entry.modified_date,
  };
}
