/**
 * Translation glossary: how the site's terms are translated into its other languages, for
 * translators. Only on sites with several languages (STEPWISE_LANGUAGES); elsewhere every
 * glossary request is refused with 403. Terms are in the site's first language and unique
 * (case-insensitive); each entry holds at most one translation per other language. Any
 * signed-in user reads; Authors and Admins change entries.
 */
import { config } from '../../shared/config.ts';
import {
  ConflictError,
  FeatureUnavailableError,
  NotFoundError,
  ValidationError,
  type FieldProblem,
} from '../../shared/domain/errors.ts';
import { actorFields, type Caller } from '../../shared/domain/caller.ts';
import { nextIds } from '../../shared/db/counters.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';
import {
  applyGlossaryChanges,
  getGlossaryEntries,
  listGlossaryEntries,
  touchedKeys,
  type GlossaryChanges,
  type GlossaryEntryRecord,
  type GlossaryTranslation,
} from '../../shared/db/entities/glossary.ts';
import type { Page } from '../../shared/db/paging.ts';
import {
  glossaryEntryView,
  type GlossaryChangesView,
  type GlossaryEntryView,
} from '../../shared/views/glossary-views.ts';
import { MAX_GLOSSARY_CHANGES, type GlossaryInput } from './glossary.schemas.ts';

function languages() {
  const [source, ...targets] = config().STEPWISE_LANGUAGES;
  return { source: source ?? 'en', targets };
}

/** 403 unless the site has several languages. */
function requireMultilingual(): void {
  if (config().STEPWISE_LANGUAGES.length < 2) {
    throw new FeatureUnavailableError(
      'The translation glossary is only available on sites with several languages (STEPWISE_LANGUAGES)',
    );
  }
}

export async function list(page: Page): Promise<GlossaryEntryView[]> {
  requireMultilingual();
  return (await listGlossaryEntries(page)).map(glossaryEntryView);
}

/** Problems of one request entry's translations, with field paths into the body. */
function translationProblems(prefix: string, translations: GlossaryTranslation[]): FieldProblem[] {
  const { source, targets } = languages();
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  translations.forEach((translation, index) => {
    const field = `${prefix}.translations.${index}`;
    if (!targets.includes(translation.langid)) {
      const why =
        translation.langid === source
          ? `${source} is the language of the term`
          : `langid must be one of: ${targets.join(', ')}`;
      problems.push({ field: `${field}.langid`, code: 'invalid', message: why });
    }
    if (seen.has(translation.langid))
      problems.push({
        field: `${field}.langid`,
        code: 'duplicate',
        message: `Two translations for ${translation.langid}`,
      });
    seen.add(translation.langid);
    if (translation.translation.trim() === '')
      problems.push({ field: `${field}.translation`, code: 'invalid', message: 'translation must not be empty' });
  });
  return problems;
}

function cleanTranslations(translations: GlossaryTranslation[]): GlossaryTranslation[] {
  return translations
    .map((t) => ({ langid: t.langid, translation: t.translation.trim() }))
    .sort((a, b) => a.langid.localeCompare(b.langid));
}

function fail(problems: FieldProblem[]): never {
  throw new ValidationError(problems.map((problem) => problem.message).join('; '), problems);
}

/**
 * Adds (entries without entryid), changes (entries with entryid: the fields given replace the
 * old ones; `translations` is the whole list wanted, so a language left out is removed) and
 * deletes (`delete`: entryids), all in one transaction.
 */
export async function apply(caller: Caller, input: GlossaryInput): Promise<GlossaryChangesView> {
  requireMultilingual();
  const entries = input.entries ?? [];
  const deletes = [...new Set(input.delete ?? [])];
  if (entries.length + deletes.length === 0)
    fail([
      {
        field: 'entries',
        code: 'missing_field',
        message: 'Give entries to add or change, entryids to delete, or both',
      },
    ]);
  if (entries.length + deletes.length > MAX_GLOSSARY_CHANGES)
    fail([{ field: 'entries', code: 'too_many', message: `At most ${MAX_GLOSSARY_CHANGES} changes per request` }]);

  const problems: FieldProblem[] = [];
  const changedIds = entries.map((entry) => entry.entryid).filter((id): id is number => id !== undefined);
  const named = new Set<number>();
  entries.forEach((entry, index) => {
    const prefix = `entries.${index}`;
    if (entry.entryid === undefined && entry.term === undefined)
      problems.push({
        field: `${prefix}.term`,
        code: 'missing_field',
        message: `${prefix}.term is required for a new entry`,
      });
    if (entry.term !== undefined && entry.term.trim() === '')
      problems.push({ field: `${prefix}.term`, code: 'invalid', message: 'term must not be empty' });
    if (entry.entryid !== undefined) {
      if (named.has(entry.entryid) || deletes.includes(entry.entryid))
        problems.push({
          field: `${prefix}.entryid`,
          code: 'duplicate',
          message: `entryid ${entry.entryid} is named twice`,
        });
      named.add(entry.entryid);
      if (entry.term === undefined && entry.translations === undefined && entry.notes === undefined) {
        problems.push({
          field: prefix,
          code: 'missing_field',
          message: `${prefix}: give term, translations or notes to change`,
        });
      }
    }
    problems.push(...translationProblems(prefix, entry.translations ?? []));
  });
  if (problems.length > 0) fail(problems);

  const existing = new Map(
    (await getGlossaryEntries([...changedIds, ...deletes])).map((entry) => [entry.entryid, entry]),
  );
  entries.forEach((entry, index) => {
    if (entry.entryid !== undefined && !existing.has(entry.entryid))
      problems.push({
        field: `entries.${index}.entryid`,
        code: 'not_found',
        message: `No glossary entry ${entry.entryid}`,
      });
  });
  deletes.forEach((entryid, index) => {
    if (!existing.has(entryid))
      problems.push({ field: `delete.${index}`, code: 'not_found', message: `No glossary entry ${entryid}` });
  });
  if (problems.length > 0) fail(problems);

  const now = nowSeconds();
  const { source } = languages();
  const creates = entries.filter((entry) => entry.entryid === undefined);
  const newIds = await nextIds('glossary', creates.length);
  const changes: GlossaryChanges = { creates: [], updates: [], deletes: [] };
  entries.forEach((entry, index) => {
    if (entry.entryid === undefined) {
      changes.creates.push({
        index,
        entry: {
          entryid: newIds[changes.creates.length],
          term: entry.term!.trim(),
          langid: source,
          translations: cleanTranslations(entry.translations ?? []),
          notes: entry.notes ?? '',
          created_date: now,
          modified_date: now,
          ...actorFields('modified_by', caller),
          version: 1,
        },
      });
    } else {
      const before = existing.get(entry.entryid)!;
      const after: GlossaryEntryRecord = {
        ...before,
        term: entry.term?.trim() ?? before.term,
        translations: entry.translations ? cleanTranslations(entry.translations) : before.translations,
        notes: entry.notes ?? before.notes,
        modified_date: now,
        ...actorFields('modified_by', caller),
        version: before.version + 1,
      };
      changes.updates.push({ index, before, after });
    }
  });
  for (const [index, entryid] of deletes.entries()) {
    changes.deletes.push({ index: entries.length + index, entry: existing.get(entryid)! });
  }

  const keys = touchedKeys(changes);
  if (new Set(keys).size !== keys.length) {
    fail([
      {
        field: 'entries',
        code: 'conflict',
        message: 'Two changes of this request name the same term; split them into two requests',
      },
    ]);
  }
  try {
    await applyGlossaryChanges(changes);
  } catch (error) {
    if (!(error instanceof TransactionConditionFailed)) throw error;
    const field = (index: number) => (index < entries.length ? `entries.${index}` : `delete.${index - entries.length}`);
    const taken = error.failedLabels
      .filter((label) => label.startsWith('term:'))
      .map((label) => Number(label.slice(5)));
    if (taken.length > 0) {
      fail(
        taken.map((index) => ({
          field: `${field(index)}.term`,
          code: 'already_exists',
          message: `The term ${entries[index].term} is already in the glossary`,
        })),
      );
    }
    throw new ConflictError('Another change to these glossary entries came first; read them again and retry');
  }
  return {
    saved: [...changes.creates.map(({ entry }) => entry), ...changes.updates.map(({ after }) => after)].map(
      glossaryEntryView,
    ),
    deleted: deletes,
  };
}

export async function remove(entryid: number): Promise<void> {
  // Unknown first (404), then the site check: a one-language site has no entries to find.
  const [entry] = await getGlossaryEntries([entryid]);
  if (!entry) throw new NotFoundError(`No glossary entry ${entryid}`);
  requireMultilingual();
  try {
    await applyGlossaryChanges({ creates: [], updates: [], deletes: [{ index: 0, entry }] });
  } catch (error) {
    if (error instanceof TransactionConditionFailed) throw new NotFoundError(`No glossary entry ${entryid}`);
    throw error;
  }
}
