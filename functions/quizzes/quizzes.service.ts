/**
 * Quiz use cases: read a definition, delete, attach to guides and wikis, list and categories.
 * Import lives in functions/quiz-import (the only function that bundles survey-core).
 */
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { hasRole, type Caller } from '../../shared/domain/caller.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';
import { changeGuide } from '../../shared/content/guide-revisions.ts';
import { assertCanEditGuide } from '../../shared/content/guide-access.ts';
import { fullGuide } from '../../shared/read-models/guide-pages.ts';
import { getWiki } from '../../shared/db/entities/wiki.ts';
import { latestRelease } from '../../shared/db/entities/release.ts';
import {
  attachQuiz,
  currentQuizLink,
  deleteQuiz,
  getQuiz,
  getQuizRevision,
  guideTitles,
  listAllQuizzes,
  listCategories,
  MAX_DOC_TITLES,
  type QuizLinkRecord,
  type QuizRecord,
} from '../../shared/db/entities/quiz.ts';
import { quizDefinitionView, quizListEntry, type QuizListEntry } from '../../shared/views/quiz-views.ts';
import type { AttachGuideInput, AttachWikiInput, ListCriteria, SortKey } from './quizzes.schemas.ts';

export async function requireQuiz(quizid: number, options: { consistent?: boolean } = {}): Promise<QuizRecord> {
  const quiz = await getQuiz(quizid, options);
  if (!quiz) throw new NotFoundError(`No quiz with quizid ${quizid}`);
  return quiz;
}

const isEditor = (caller: Caller) => hasRole(caller, 'Author');

/** GET /quizzes/{quizid}: Authors and Admins see every quiz with its answers; users enabled quizzes without. */
export async function readQuiz(caller: Caller, quizid: number) {
  const quiz = await requireQuiz(quizid);
  if (!quiz.enabled && !isEditor(caller)) throw new ForbiddenError('This quiz is disabled');
  const revision = await getQuizRevision(quiz.quizid, quiz.quiz_revisionid);
  if (!revision) throw new NotFoundError(`No quiz with quizid ${quizid}`);
  return quizDefinitionView(quiz, revision, { withAnswers: isEditor(caller) });
}

/** POST /quizzes/delete: deletes each existing quiz; reports the ids that were not. */
export async function deleteQuizzes(quizids: number[]) {
  const deleted: number[] = [];
  const invalid: number[] = [];
  for (const quizid of [...new Set(quizids)]) {
    try {
      await deleteQuiz(quizid);
      deleted.push(quizid);
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed && error.failedLabels.includes('quiz'))) throw error;
      invalid.push(quizid);
    }
  }
  return { deleted, invalid };
}

function attachmentView(link: QuizLinkRecord) {
  const revisionField = link.doctype === 'guide' ? 'guide_revisionid' : 'wiki_revisionid';
  return {
    quizid: link.quizid,
    quiz_revisionid: link.quiz_revisionid,
    doctype: link.doctype,
    [link.doctype === 'guide' ? 'guideid' : 'wikiid']: link.docid,
    [revisionField]: link.doc_revisionid,
    date: link.date,
  };
}

/** A document title to remember on the quiz, unless it is known already (or the list is full). */
function newDocTitle(quiz: QuizRecord, title: string): string | undefined {
  return quiz.doc_titles.includes(title) || quiz.doc_titles.length >= MAX_DOC_TITLES ? undefined : title;
}

function attachFailure(error: unknown, quizid: number): never {
  if (error instanceof TransactionConditionFailed && error.failedLabels.includes('quiz')) {
    throw new NotFoundError(`No quiz with quizid ${quizid}`);
  }
  if (error instanceof TransactionConditionFailed && error.failedLabels.includes('guide')) {
    throw new ConflictError('The guide changed while the quiz was being attached; attach it again');
  }
  throw error;
}

/**
 * POST /quizzes/attach/guide?revisionid=: a new guide revision (content unchanged), then the
 * guide quiz revision naming it and the quiz's current revision. The guide's `?revisionid=`
 * is required (409 with the current guide when stale).
 */
export async function attachToGuide(caller: Caller, input: AttachGuideInput, expectedRevision: number | undefined) {
  const quiz = await requireQuiz(input.quizid, { consistent: true });
  await assertCanEditGuide(caller, input.guideid);
  if (expectedRevision === undefined)
    throw ValidationError.field('revisionid', 'missing_field', "revisionid (the guide's current revision) is required");
  const previous = await currentQuizLink('guide', input.guideid);
  const guide = await changeGuide(
    input.guideid,
    {
      expectedRevision,
      reason: 'quiz.attach',
      changedBy: caller.userid,
      conflictView: (current) => fullGuide(caller, current),
    },
    (current) => ({ guide: current }),
  );
  const link: QuizLinkRecord = {
    doctype: 'guide',
    docid: guide.guideid,
    doc_revisionid: guide.revisionid,
    quizid: quiz.quizid,
    quiz_revisionid: quiz.quiz_revisionid,
    userid: caller.userid,
    date: nowSeconds(),
  };
  try {
    await attachQuiz(
      link,
      {
        guideid: guide.guideid,
        guide_title: guide.title,
        guide_revisionid: guide.revisionid,
        doc_title: newDocTitle(quiz, guide.title),
      },
      previous ? { quizid: previous.quizid, guideid: guide.guideid } : undefined,
    );
  } catch (error) {
    // The quiz moved on meanwhile (or another quiz's guide changed): the new guide revision stays, harmless.
    if (error instanceof TransactionConditionFailed && error.failedLabels.every((label) => label === 'detach')) {
      await attachQuiz(link, {
        guideid: guide.guideid,
        guide_title: guide.title,
        guide_revisionid: guide.revisionid,
        doc_title: newDocTitle(quiz, guide.title),
      });
    } else attachFailure(error, quiz.quizid);
  }
  return { ...attachmentView(link), revisionid: guide.revisionid };
}

/** POST /quizzes/attach/wiki: a wiki quiz revision naming the wiki's and the quiz's current revisions. */
export async function attachToWiki(caller: Caller, input: AttachWikiInput) {
  const quiz = await requireQuiz(input.quizid, { consistent: true });
  const wiki = await getWiki(input.wikiid);
  if (!wiki) throw new NotFoundError(`No wiki with wikiid ${input.wikiid}`);
  const link: QuizLinkRecord = {
    doctype: 'wiki',
    docid: wiki.wikiid,
    doc_revisionid: wiki.revisionid,
    quizid: quiz.quizid,
    quiz_revisionid: quiz.quiz_revisionid,
    userid: caller.userid,
    date: nowSeconds(),
  };
  try {
    await attachQuiz(link, { doc_title: newDocTitle(quiz, wiki.title) });
  } catch (error) {
    attachFailure(error, quiz.quizid);
  }
  return attachmentView(link);
}

function compareBy(sort: SortKey, titles: Map<number, string>): (a: QuizRecord, b: QuizRecord) => number {
  const text = (value: string | null | undefined) => (value ?? '').toLowerCase();
  const number = (value: number | null | undefined) => value ?? -1;
  switch (sort) {
    case 'guideid':
      return (a, b) => number(a.guideid) - number(b.guideid);
    case 'category':
      return (a, b) => text(a.category).localeCompare(text(b.category));
    case 'quiz_title':
      return (a, b) => text(a.title).localeCompare(text(b.title));
    case 'guide_title':
      return (a, b) => text(titleOf(a, titles)).localeCompare(text(titleOf(b, titles)));
    case 'sessions_submitted':
      return (a, b) => a.sessions_submitted - b.sessions_submitted;
    case 'release_date':
      return (a, b) => number(a.released_date) - number(b.released_date);
  }
}

function titleOf(quiz: QuizRecord, titles: Map<number, string>): string | null {
  return quiz.guideid === null ? null : (titles.get(quiz.guideid) ?? quiz.guide_title);
}

/** The list entries of a page: the guide's current title and its latest release, per row. */
async function listEntries(quizzes: QuizRecord[], titles: Map<number, string>): Promise<QuizListEntry[]> {
  const guideids = [...new Set(quizzes.flatMap((quiz) => (quiz.guideid === null ? [] : [quiz.guideid])))];
  const missing = guideids.filter((guideid) => !titles.has(guideid));
  const [fresh, releases] = await Promise.all([
    guideTitles(missing),
    Promise.all(
      guideids.map(async (guideid) => [guideid, (await latestRelease('guide', guideid))?.version ?? null] as const),
    ),
  ]);
  const allTitles = new Map([...titles, ...fresh]);
  const versions = new Map(releases);
  return quizzes.map((quiz) =>
    quizListEntry(quiz, {
      title: titleOf(quiz, allTitles),
      release_version: quiz.guideid === null ? null : (versions.get(quiz.guideid) ?? null),
    }),
  );
}

/**
 * The quizzes matching the criteria, sorted, one page. A site holds at most MAX_QUIZZES
 * quizzes (enforced at import), so this reads them all in one bounded Query of small items
 * and sorts in memory; guide titles are read fresh (projected BatchGet) only when the sort or
 * the search needs them for every row (docs/quizzes.md "Lists").
 */
export async function listQuizzes(criteria: ListCriteria): Promise<{ total: number; entries: QuizListEntry[] }> {
  const quizzes = await listAllQuizzes();
  const needsAllTitles = criteria.sort === 'guide_title' || Boolean(criteria.search);
  const titles = needsAllTitles
    ? await guideTitles(quizzes.flatMap((quiz) => (quiz.guideid === null ? [] : [quiz.guideid])))
    : new Map<number, string>();
  const search = criteria.search?.trim().toLowerCase();
  const category = criteria.category?.trim().toLowerCase();
  const selected = quizzes.filter(
    (quiz) =>
      (category === undefined || category === '' || quiz.category.toLowerCase() === category) &&
      (criteria.enabled === undefined || quiz.enabled === criteria.enabled) &&
      (criteria.guideid === undefined || quiz.guideid === criteria.guideid) &&
      (!search ||
        quiz.title.toLowerCase().includes(search) ||
        (titleOf(quiz, titles) ?? '').toLowerCase().includes(search)),
  );
  const compare = compareBy(criteria.sort, titles);
  const sign = criteria.direction === 'ASC' ? 1 : -1;
  selected.sort((a, b) => sign * compare(a, b) || sign * (a.quizid - b.quizid));
  const page = selected.slice(criteria.offset, criteria.offset + criteria.limit);
  return { total: selected.length, entries: await listEntries(page, titles) };
}

/** GET /quizzes/categories: every category ever used, also by disabled or deleted quizzes. */
export async function categories() {
  return (await listCategories()).map((name) => ({ name }));
}

/** Quizzes whose title, guide title or attached documents' titles contain the text (sessions `query`). */
export async function quizidsMatching(text: string): Promise<Set<number>> {
  const needle = text.trim().toLowerCase();
  const quizzes = await listAllQuizzes();
  return new Set(
    quizzes
      .filter((quiz) =>
        [quiz.title, quiz.guide_title ?? '', ...quiz.doc_titles].some((title) => title.toLowerCase().includes(needle)),
      )
      .map((quiz) => quiz.quizid),
  );
}
