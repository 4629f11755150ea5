/**
 * Quizzes: each quiz with its current revision (the SurveyJS definition, its graded questions
 * found again with the same analysis the import runs), the categories, the site's quiz count,
 * and every session with each user's progress rebuilt from their sessions. Written through the
 * quiz and quiz-session entities' own builders.
 *
 * Read as an Admin: GET /quizzes (list entries: submission count, last release, guide title),
 * GET /quizzes/{quizid} (the definition with the answer key), /quizzes/categories,
 * /quizzes/sessions and /quizzes/submissions/{sessionid} (the graded results).
 */
import { itemsOfWrites, type CrawlContext, type ResourceCrawler } from '../crawl.ts';
import { isDenied } from './training-common.ts';
import {
  quizCategoryWrite,
  quizCountPutWrite,
  quizCreateWrites,
  type QuizRecord,
  type QuizRevisionRecord,
} from '../../../../shared/db/entities/quiz.ts';
import {
  progressPutWrite,
  sessionCreateWrites,
  type QuizProgressRecord,
  type QuizSessionRecord,
} from '../../../../shared/db/entities/quiz-session.ts';
import { analyzeSurvey } from '../../../../shared/domain/survey-analysis.ts';
import type {
  QuizDefinitionView,
  QuizListEntry,
  QuizSessionView,
  SubmissionView,
} from '../../../../shared/views/quiz-views.ts';

/** Stored attributes API 2.0 does not hand out, and what the crawler writes instead. */
export const QUIZ_UNEXPOSED = {
  Quiz: {
    userid: 'who imported the quiz is not shown: 0',
    guide_revisionid: 'the guide revision the quiz was attached at is not shown: null',
    doc_titles: 'the titles of the documents it is attached to are not shown: the guide title, if any',
  },
  QuizRevision: {
    userid: 'who imported the revision is not shown: 0',
    date: "when it was imported is not shown: the quiz's modified_date",
  },
  QuizProgress: { invalidated_date: 'when an Admin reset the results is not shown: left out' },
} as const;

const PAGE = 200;

/** The quiz's own fields GET /quizzes/{quizid} sets beside the definition's keys. */
const QUIZ_FIELDS = [
  'quizid',
  'quiz_revisionid',
  'quiz_title',
  'category',
  'pass_threshold',
  'max_attempts',
  'enabled',
  'guideid',
  'question_count',
  'created_date',
  'modified_date',
];

export function quizRecordsOf(view: QuizDefinitionView, entry: QuizListEntry) {
  const definition = Object.fromEntries(Object.entries(view).filter(([key]) => !QUIZ_FIELDS.includes(key)));
  const analysis = analyzeSurvey(definition);
  const quiz: QuizRecord = {
    quizid: view.quizid,
    quiz_revisionid: view.quiz_revisionid,
    title: view.quiz_title,
    category: view.category,
    pass_threshold: view.pass_threshold,
    max_attempts: view.max_attempts,
    enabled: view.enabled,
    userid: 0,
    created_date: view.created_date,
    modified_date: view.modified_date,
    question_count: view.question_count,
    sessions_submitted: entry.quizzes_submitted,
    guideid: view.guideid,
    guide_title: entry.guide_title,
    guide_revisionid: null,
    doc_titles: entry.guide_title ? [entry.guide_title] : [],
    released_date: entry.quiz_last_released,
  };
  const revision: QuizRevisionRecord = {
    quizid: view.quizid,
    quiz_revisionid: view.quiz_revisionid,
    title: view.quiz_title,
    definition_json: JSON.stringify(analysis.definition),
    questions: analysis.questions,
    pass_threshold: view.pass_threshold,
    max_attempts: view.max_attempts,
    userid: 0,
    date: view.modified_date,
  };
  return { quiz, revision, problems: analysis.problems };
}

export function sessionRecordOf(view: QuizSessionView, graded: SubmissionView | undefined): QuizSessionRecord {
  return {
    quiz_sessionid: view.quiz_sessionid,
    quizid: view.quizid,
    quiz_revisionid: view.quiz_revisionid,
    quiz_title: view.quiz_title,
    userid: view.userid,
    response_json: JSON.stringify(view.response_json ?? {}),
    start_date: view.start_date,
    modified_date: view.modified_date,
    end_date: view.end_date,
    submitted: view.submitted ? 1 : 0,
    cancelled: view.cancelled ? 1 : 0,
    invalidated: view.invalidated ? 1 : 0,
    attempt: view.attempt,
    score: view.score,
    correct_count: graded?.correct_count ?? null,
    question_count: graded?.question_count ?? null,
    passed: view.passed,
    pass_threshold: graded?.pass_threshold ?? null,
    results: graded?.results ?? null,
  };
}

/**
 * A user's progress on a quiz as their sessions (by id) left it: submissions since the last
 * reset count as attempts (a reset marks the earlier ones invalidated), the best of their scores,
 * passed and locked by the same rule as a submission, the open session and the last submitted.
 */
export function progressOf(
  sessions: QuizSessionRecord[],
  maxAttempts: number | null,
): Partial<QuizProgressRecord> & { userid: number; quizid: number } {
  const { userid, quizid } = sessions[0]!;
  const submitted = sessions.filter((session) => session.submitted);
  const counted = submitted.filter((session) => !session.invalidated);
  const passed = counted.some((session) => session.passed === true);
  const open = sessions.find((session) => !session.submitted && !session.cancelled);
  return {
    userid,
    quizid,
    attempts: counted.length,
    passed,
    locked: !passed && maxAttempts !== null && counted.length >= maxAttempts,
    active_sessionid: open?.quiz_sessionid,
    last_sessionid: submitted.at(-1)?.quiz_sessionid,
    best_score:
      submitted.length === 0 ? undefined : counted.length ? Math.max(0, ...counted.map((s) => s.score ?? 0)) : null,
  };
}

async function crawlQuizzes(context: CrawlContext): Promise<Map<number, QuizRecord>> {
  const quizzes = new Map<number, QuizRecord>();
  const categories = new Set<string>();
  for await (const page of context.api.pages<QuizListEntry>('/quizzes', { pageSize: PAGE })) {
    for (const entry of page) {
      // A quiz created while the list is paged shifts it: one already read comes again.
      if (quizzes.has(entry.quizid)) continue;
      const view = await context.api.find<QuizDefinitionView>(`/quizzes/${entry.quizid}`);
      if (!view) {
        context.report.skipped(`quiz ${entry.quizid}`, 'gone from the source while it was read');
        continue;
      }
      const { quiz, revision, problems } = quizRecordsOf(view, entry);
      quizzes.set(quiz.quizid, quiz);
      context.sink.idSeen('quiz', quiz.quizid);
      context.sink.idSeen('revision', quiz.quiz_revisionid);
      if (problems.length) context.report.skipped(`graded questions of quiz ${quiz.quizid}`, problems[0]!.message);
      const unit = `quiz:${quiz.quizid}`;
      if (context.isDone(unit)) continue;
      // Categories are written once, with those of deleted quizzes, by the categories unit.
      const items = itemsOfWrites(quizCreateWrites(quiz, revision)).filter((item) => item.pk !== 'QUIZCATEGORIES');
      await context.sink.items(items);
      await context.completed(unit);
    }
  }
  for (const category of await context.api.get<Array<{ name: string }>>('/quizzes/categories'))
    categories.add(category.name);
  if (!context.isDone('quiz-categories')) {
    await context.sink.items(itemsOfWrites([...categories].map(quizCategoryWrite)));
    await context.completed('quiz-categories');
  }
  if (!context.isDone('quiz-count')) {
    await context.sink.items(itemsOfWrites([quizCountPutWrite(quizzes.size)]));
    await context.completed('quiz-count');
  }
  return quizzes;
}

async function crawlSessions(context: CrawlContext, quizzes: Map<number, QuizRecord>): Promise<void> {
  const read = new Map<number, QuizSessionRecord>();
  for await (const page of context.api.pages<QuizSessionView>('/quizzes/sessions', {
    pageSize: PAGE,
    itemsOf: (body) => (body as { quizSessions: QuizSessionView[] }).quizSessions,
  })) {
    for (const view of page) {
      // Newest first: a session opened while the list is paged shifts it, so one may come twice.
      if (read.has(view.quiz_sessionid)) continue;
      context.sink.idSeen('quiz_session', view.quiz_sessionid);
      const graded = view.submitted
        ? await context.api.find<SubmissionView>(`/quizzes/submissions/${view.quiz_sessionid}`)
        : undefined;
      read.set(view.quiz_sessionid, sessionRecordOf(view, graded));
    }
  }
  const sessions = [...read.values()];
  if (context.isDone('quiz-sessions')) return;
  const byProgress = new Map<string, QuizSessionRecord[]>();
  for (const session of sessions.sort((a, b) => a.quiz_sessionid - b.quiz_sessionid)) {
    const key = `${session.userid}#${session.quizid}`;
    byProgress.set(key, [...(byProgress.get(key) ?? []), session]);
  }
  const writes = sessions.flatMap(sessionCreateWrites);
  for (const group of byProgress.values()) {
    writes.push(progressPutWrite(progressOf(group, quizzes.get(group[0]!.quizid)?.max_attempts ?? null)));
  }
  await context.sink.items(itemsOfWrites(writes));
  await context.completed('quiz-sessions');
  if (sessions.some((session) => session.invalidated)) {
    context.report.unexposed('quiz result resets', "when an Admin reset a user's results is not shown");
  }
}

export const quizzesCrawler: ResourceCrawler = {
  name: 'quizzes',
  after: ['users', 'guides', 'wikis'],
  async crawl(context) {
    try {
      const quizzes = await crawlQuizzes(context);
      await crawlSessions(context, quizzes);
    } catch (error) {
      if (!isDenied(error)) throw error;
      context.report.unexposed('quizzes', 'the source refused the quiz lists to this account');
      return;
    }
    context.report.unexposed('quiz revisions before the current one', 'only the current definition is shown');
    context.report.unexposed('quiz attachments to guide and wiki revisions', 'API 2.0 lists no attachments');
    context.report.unexposed('quiz authorship', 'who imported a quiz or revision is not shown');
  },
};
