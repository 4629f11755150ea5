/**
 * The translation glossary (sites with several languages; a one-language source answers 403,
 * reported as unexposed): every entry with its term claim, through the glossary entity's builder.
 */
import { itemsOfWrites, type ResourceCrawler } from '../crawl.ts';
import { isDenied } from './training-common.ts';
import { glossaryCreateWrites, type GlossaryEntryRecord } from '../../../../shared/db/entities/glossary.ts';
import type { GlossaryEntryView } from '../../../../shared/views/glossary-views.ts';

/** Stored attributes API 2.0 does not hand out, and what the crawler writes instead. */
export const GLOSSARY_UNEXPOSED = {
  GlossaryEntry: {
    modified_by: 'who last changed an entry is not shown: 0',
    version: 'internal optimistic-lock counter: starts again at 1',
  },
} as const;

export function glossaryRecordOf(view: GlossaryEntryView): GlossaryEntryRecord {
  return {
    entryid: view.entryid,
    term: view.term,
    langid: view.langid,
    translations: view.translations,
    notes: view.notes,
    created_date: view.created_date,
    modified_date: view.modified_date,
    modified_by: 0,
    version: 1,
  };
}

export const glossaryCrawler: ResourceCrawler = {
  name: 'glossary',
  async crawl(context) {
    const entries: GlossaryEntryView[] = [];
    try {
      for await (const page of context.api.pages<GlossaryEntryView>('/translation_glossary/entries', {
        pageSize: 1000,
      })) {
        entries.push(...page);
      }
    } catch (error) {
      if (!isDenied(error)) throw error;
      context.report.unexposed('translation glossary', 'the source refused it (a one-language site has none)');
      return;
    }
    for (const entry of entries) context.sink.idSeen('glossary', entry.entryid);
    if (entries.length) context.report.unexposed('glossary authorship', 'who last changed each entry is not shown');
    if (context.isDone('glossary')) return;
    await context.sink.items(itemsOfWrites(entries.flatMap((entry) => glossaryCreateWrites(glossaryRecordOf(entry)))));
    await context.completed('glossary');
  },
};
