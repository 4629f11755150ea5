/**
 * Quiz sessions: save, submit (graded), cancel, results, lists by visibility, bulk cancel and
 * an Admin's force-invalidation of a user's results. A user has at most one open session per
 * quiz; the progress item guards it in DynamoDB (shared/db/entities/quiz-session.ts).
 */
import { parseJsonText } from '../../shared/domain/json-text.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { gradeResponse, malformedAnswers } from '../../shared/domain/quiz-grading.ts';
import { auditActor, isAdmin, type Caller } from '../../shared/domain/caller.ts';
import { nextId } from '../../shared/db/counters.ts';
import { padId } from '../../shared/db/keys.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { queryPage, type PageQuery } from '../../shared/db/paging.ts';
import { mergedPageDescending } from '../../shared/db/merged-pages.ts';
import { TransactionConditionFailed, type LabelledWrite } from '../../shared/db/transactions.ts';
import { ClientGuidTaken, createOnce, lostGuidRace } from '../../shared/db/client-guid.ts';
import { isLostRace, LostRace, retryOnLostRace } from '../../shared/db/retry.ts';
import { appendAudit, auditSubject } from '../../shared/db/audit.ts';
import { getTeams, listMembers } from '../../shared/db/entities/team.ts';
import { getUser, getUsers } from '../../shared/db/entities/user.ts';
import {
  countSubmissionWrite,
  currentQuizLink,
  documentsOfQuiz,
  getQuizRevision,
  type QuizRecord,
} from '../../shared/db/entities/quiz.ts';
import {
  allSessionsCollection,
  cancelSession,
  getProgress,
  getSession,
  getSessions,
  listAllUserSessions,
  listUserProgress,
  markSessionInvalidated,
  openSession,
  quizSessionsCollection,
  resetProgressWrites,
  sessionFromItem,
  sessionidOf,
  sessionLinkFromItem,
  submitSession,
  updateResponse,
  userSessionsCollection,
  type QuizSessionRecord,
} from '../../shared/db/entities/quiz-session.ts';
import { refreshDocumentsOfQuizzes } from './stage-progress.ts';
import { quizidsMatching, requireQuiz } from './quizzes.service.ts';
import { sessionView, submissionView } from '../../shared/views/quiz-views.ts';
import type { InvalidateUserInput, SessionInput, SessionListQuery } from './quizzes.schemas.ts';

/** Largest stored response (a DynamoDB item holds 400 KB; results and keys need room). */
export const MAX_RESPONSE_BYTES = 100_000;
/** Members read per owned team when a Team Owner lists sessions. */
const MAX_MEMBERS_PER_TEAM = 1000;
const MAX_RACE_RETRIES = 8;

/** response_json: an object, or JSON text of one. */
export function parseResponse(raw: unknown): Record<string, unknown> {
  let value = raw;
  if (typeof raw === 'string') {
    const parsed = parseJsonText(raw, 'response_json');
    if (!parsed)
      throw ValidationError.field(
        'response_json',
        'invalid',
        'response_json must be a JSON object (or JSON text of one)',
      );
    value = parsed.value;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw ValidationError.field(
      'response_json',
      'invalid',
      'response_json must be a JSON object (or JSON text of one)',
    );
  }
  return value as Record<string, unknown>;
}

function serialized(response: Record<string, unknown>): string {
  const text = JSON.stringify(response);
  if (Buffer.byteLength(text) > MAX_RESPONSE_BYTES)
    throw ValidationError.field(
      'response_json',
      'too_large',
      `response_json is larger than ${MAX_RESPONSE_BYTES} bytes`,
    );
  return text;
}

async function requireTakeableQuiz(quizid: number): Promise<QuizRecord> {
  const quiz = await requireQuiz(quizid);
  if (!quiz.enabled) throw new ForbiddenError('This quiz is disabled');
  return quiz;
}

const lockedError = () => new ForbiddenError('The quiz is locked for this user: the attempt limit is used up');

async function usernameOf(userid: number): Promise<string | null> {
  return (await getUser(userid))?.username ?? null;
}

/**
 * The caller's open session for the quiz, with `response` stored: updates the open one, or
 * opens one. Concurrent saves meet at the progress item's condition, so exactly one session
 * opens and the others update it.
 */
async function saveResponse(
  caller: Caller,
  quiz: QuizRecord,
  responseText: string,
): Promise<{ session: QuizSessionRecord; created: boolean }> {
  return retryOnLostRace(
    async () => {
      const progress = await getProgress(caller.userid, quiz.quizid, { consistent: true });
      if (progress?.locked) throw lockedError();
      const now = nowSeconds();
      if (progress?.active_sessionid != null) {
        const updated = await updateResponse(progress.active_sessionid, responseText, now);
        if (updated) return { session: updated, created: false };
        throw new LostRace('The open session closed meanwhile');
      }
      const session: QuizSessionRecord = {
        quiz_sessionid: await nextId('quiz_session'),
        quizid: quiz.quizid,
        quiz_revisionid: quiz.quiz_revisionid,
        quiz_title: quiz.title,
        userid: caller.userid,
        response_json: responseText,
        start_date: now,
        modified_date: now,
        end_date: null,
        submitted: 0,
        cancelled: 0,
        invalidated: 0,
        attempt: null,
        score: null,
        correct_count: null,
        question_count: null,
        passed: null,
        pass_threshold: null,
        results: null,
      };
      try {
        await openSession(session);
        return { session, created: true };
      } catch (error) {
        if (error instanceof TransactionConditionFailed && error.oldItems.progress?.locked === true)
          throw lockedError();
        // Another save opened the session first (a lost race): the next attempt updates that one.
        throw error;
      }
    },
    { attempts: MAX_RACE_RETRIES, message: 'Could not save the quiz session: too many concurrent saves; try again' },
  );
}

/** POST /quizzes/sessions/save: 201 with a new session, 200 with the updated open one. */
export async function save(caller: Caller, input: SessionInput) {
  const quiz = await requireTakeableQuiz(input.quizid);
  const responseText = serialized(input.response_json === undefined ? {} : parseResponse(input.response_json));
  const { session, created } = await saveResponse(caller, quiz, responseText);
  return { created, body: sessionView(session, caller.username) };
}

/**
 * POST /quizzes/sessions/submit: grades the open session (after storing `response_json` when
 * given; with no open session and a response, one is opened and submitted at once), counts the
 * attempt, passes or locks, and refreshes the course stages on the quiz's documents.
 */
export async function submit(caller: Caller, input: SessionInput) {
  const { client_guid, ...request } = input;
  const { record } = await createOnce({
    kind: 'quiz_answer',
    userid: caller.userid,
    guid: client_guid,
    request,
    existing: (ref) => submittedAgain(caller, Number(ref)),
    make: (claim) => submitOnce(caller, input, claim),
  });
  return record;
}

/** A submission already made under a client guid, answered as its submit answered (decision 224). */
async function submittedAgain(caller: Caller, sessionid: number) {
  const session = await getSession(sessionid, { consistent: true });
  if (!session) throw new NotFoundError(`No quiz session ${sessionid}`);
  const [progress, revision] = await Promise.all([
    getProgress(caller.userid, session.quizid, { consistent: true }),
    getQuizRevision(session.quizid, session.quiz_revisionid),
  ]);
  const attempts = progress?.attempts ?? session.attempt ?? 0;
  const maxAttempts = revision?.max_attempts ?? null;
  return {
    ...submissionView(session, caller.username),
    attempts_used: attempts,
    attempts_remaining: maxAttempts === null ? null : Math.max(0, maxAttempts - attempts),
    quiz_passed: progress?.passed ?? false,
    locked: progress?.locked ?? false,
  };
}

async function submitOnce(caller: Caller, input: SessionInput, claim?: (sessionid: number) => LabelledWrite) {
  const quiz = await requireTakeableQuiz(input.quizid);
  const given = input.response_json === undefined ? undefined : parseResponse(input.response_json);
  const givenText = given === undefined ? undefined : serialized(given);
  const { session, outcome, end, revision, attempts, passed, locked } = await retryOnLostRace(
    async () => {
      const progress = await getProgress(caller.userid, quiz.quizid, { consistent: true });
      if (progress?.locked) throw lockedError();
      if (progress?.active_sessionid == null) {
        if (givenText === undefined)
          throw ValidationError.field(
            'response_json',
            'missing_field',
            'There is no open session for this quiz: send response_json to submit one',
          );
        await saveResponse(caller, quiz, givenText);
        throw new LostRace('A session was opened for the answers: submit it');
      }
      const session = await getSession(progress.active_sessionid, { consistent: true });
      if (!session || session.submitted || session.cancelled) throw new LostRace('The open session ended meanwhile');
      const revision = await getQuizRevision(session.quizid, session.quiz_revisionid);
      if (!revision) throw new NotFoundError(`No quiz with quizid ${quiz.quizid}`);
      const responseText = givenText ?? session.response_json;
      const data = given ?? parseResponse(session.response_json);
      const malformed = malformedAnswers(revision.questions, data);
      if (malformed.length > 0) {
        throw new ValidationError(
          'Answers to graded questions must be strings, numbers or booleans (arrays of them for checkbox and tagbox)',
          malformed.map((name) => ({
            field: `response_json.${name}`,
            code: 'invalid',
            message: `The answer to "${name}" has the wrong shape`,
          })),
        );
      }
      const grade = gradeResponse(revision.questions, data, revision.pass_threshold);
      const attempts = progress.attempts + 1;
      const passed = progress.passed || grade.passed;
      const locked = !passed && revision.max_attempts !== null && attempts >= revision.max_attempts;
      const best = Math.max(progress.best_score ?? 0, grade.score);
      const end = nowSeconds();
      // What the submission records: written with the progress, and read back as the session.
      const outcome = {
        response_json: responseText,
        end_date: end,
        attempt: attempts,
        score: grade.score,
        correct_count: grade.correct_count,
        question_count: grade.question_count,
        passed: grade.passed,
        pass_threshold: revision.pass_threshold,
        results: grade.results,
      };
      try {
        await submitSession(
          session,
          progress.attempts,
          { ...outcome, progress: { attempts, passed, locked, best_score: best } },
          countSubmissionWrite(quiz.quizid),
          claim ? [claim(session.quiz_sessionid)] : [],
        );
      } catch (error) {
        if (lostGuidRace(error)) throw new ClientGuidTaken();
        if (error instanceof TransactionConditionFailed && error.failedLabels.includes('quiz'))
          throw new NotFoundError(`No quiz with quizid ${quiz.quizid}`);
        throw error;
      }
      return { session, outcome, end, revision, attempts, passed, locked };
    },
    {
      attempts: MAX_RACE_RETRIES,
      message: 'Could not submit the quiz session: too many concurrent changes; try again',
    },
  );
  await refreshDocumentsOfQuizzes(caller.userid, [quiz.quizid]);
  const stored: QuizSessionRecord = { ...session, ...outcome, submitted: 1, modified_date: end };

  return {
    ...submissionView(stored, caller.username),
    attempts_used: attempts,
    attempts_remaining: revision.max_attempts === null ? null : Math.max(0, revision.max_attempts - attempts),
    quiz_passed: passed,
    locked,
  };
}

/** POST /quizzes/sessions/cancel: cancels the caller's open session; with none, a plain ok. */
export async function cancel(caller: Caller, quizid: number) {
  await requireQuiz(quizid);
  const progress = await getProgress(caller.userid, quizid, { consistent: true });
  if (progress?.active_sessionid != null) {
    const sessionid = progress.active_sessionid;
    try {
      await cancelSession({ quiz_sessionid: sessionid, userid: caller.userid, quizid }, nowSeconds());
      const session = await getSession(sessionid, { consistent: true });
      return { message: 'ok', quizSession: session ? sessionView(session, caller.username) : null };
    } catch (error) {
      // Submitted or cancelled meanwhile: nothing is open any more.
      if (!isLostRace(error)) throw error;
    }
  }
  return { message: 'ok', quizSession: null };
}

/** The users whose sessions a Team Owner sees: themself and the members of the teams they own. */
async function ownedTeamMembers(caller: Caller): Promise<Set<number> | undefined> {
  const owned = (await getTeams(caller.teams)).filter((team) => team.owner === caller.userid);
  if (owned.length === 0) return undefined;
  const members = await Promise.all(
    owned.map((team) => listMembers(team.teamid, { limit: MAX_MEMBERS_PER_TEAM, offset: 0 })),
  );
  return new Set([caller.userid, ...members.flat().map((member) => member.userid)]);
}

/** Whose sessions the caller sees: 'all' for Admins, else a set of userids (`manager`: a Team Owner). */
async function visibleUsers(caller: Caller): Promise<{ users: 'all' | Set<number>; manager: boolean }> {
  if (isAdmin(caller)) return { users: 'all', manager: true };
  const members = await ownedTeamMembers(caller);
  return members ? { users: members, manager: true } : { users: new Set([caller.userid]), manager: false };
}

async function canSeeSession(caller: Caller, session: QuizSessionRecord): Promise<boolean> {
  if (session.userid === caller.userid || isAdmin(caller)) return true;
  const members = await ownedTeamMembers(caller);
  return members?.has(session.userid) ?? false;
}

/** GET /quizzes/submissions/{sessionid}: the graded result of a submitted session. */
export async function submission(caller: Caller, sessionid: number) {
  const session = await getSession(sessionid);
  if (!session || !(await canSeeSession(caller, session))) throw new NotFoundError(`No quiz session ${sessionid}`);
  if (!session.submitted) throw new NotFoundError(`Quiz session ${sessionid} has not been submitted`);
  return submissionView(session, await usernameOf(session.userid));
}

const sessionOrder = (item: Record<string, unknown>) => padId(sessionidOf(item));

/**
 * GET /quizzes/sessions: newest first. Admins: every session (one index page); users their
 * own; Team Owners theirs and their members' (the members' own lists merged). `query` keeps
 * sessions of quizzes whose title, guide title or attached documents' titles contain it.
 */
export async function listSessions(caller: Caller, query: SessionListQuery) {
  const visible = (await visibleUsers(caller)).users;
  const text = query.query?.trim();
  let sessions: QuizSessionRecord[];
  if (!text) {
    let items: Array<Record<string, unknown>>;
    if (visible === 'all') items = await queryPage({ ...allSessionsCollection, descending: true }, query);
    else if (visible.size === 1)
      items = await queryPage({ ...userSessionsCollection([...visible][0]), descending: true }, query);
    else items = await mergedPageDescending([...visible].map(userSessionsCollection), sessionOrder, query);
    sessions = items.map(sessionFromItem);
  } else {
    const quizids = await quizidsMatching(text);
    const needle = text.toLowerCase();
    const keepQuiz = (item: Record<string, unknown>) => {
      const session = sessionFromItem(item);
      return quizids.has(session.quizid) || session.quiz_title.toLowerCase().includes(needle);
    };
    if (visible === 'all') {
      const links = await mergedPageDescending([...quizids].map(quizSessionsCollection), sessionOrder, query);
      sessions = await getSessions(links.map((link) => sessionLinkFromItem(link).quiz_sessionid));
    } else if (quizids.size > 0 && quizids.size < visible.size) {
      const sources: PageQuery[] = [...quizids].map(quizSessionsCollection);
      const links = await mergedPageDescending(sources, sessionOrder, query, (link) =>
        visible.has(sessionLinkFromItem(link).userid),
      );
      sessions = await getSessions(links.map((link) => sessionLinkFromItem(link).quiz_sessionid));
    } else {
      const items = await mergedPageDescending([...visible].map(userSessionsCollection), sessionOrder, query, keepQuiz);
      sessions = items.map(sessionFromItem);
    }
  }
  const users = new Map(
    (await getUsers([...new Set(sessions.map((session) => session.userid))])).map((user) => [
      user.userid,
      user.username,
    ]),
  );
  return { quizSessions: sessions.map((session) => sessionView(session, users.get(session.userid) ?? null)) };
}

/** POST /quizzes/sessions/bulkCancel (Admins and Team Owners): cancels each open session the caller may see. */
export async function bulkCancel(caller: Caller, sessionids: number[]) {
  const { users: visible, manager } = await visibleUsers(caller);
  if (!manager) throw new ForbiddenError('Only Admins and Team Owners cancel sessions in bulk');
  const unique = [...new Set(sessionids)];
  const found = new Map((await getSessions(unique)).map((session) => [session.quiz_sessionid, session]));
  const cancelled: number[] = [];
  const invalid: number[] = [];
  const now = nowSeconds();
  for (const sessionid of unique) {
    const session = found.get(sessionid);
    const allowed = session && (visible === 'all' || visible.has(session.userid));
    if (!session || !allowed || session.submitted || session.cancelled) {
      invalid.push(sessionid);
      continue;
    }
    try {
      await cancelSession(session, now);
      cancelled.push(sessionid);
    } catch (error) {
      if (!isLostRace(error)) throw error;
      invalid.push(sessionid);
    }
  }
  return { cancelled, invalid };
}

/** Progress items reset per audited transaction (an audit append takes 2 of the 100 writes). */
const RESETS_PER_TRANSACTION = 90;

/**
 * PATCH /quizzes/sessions/userInvalidateAll/{userid} (Admins): resets the user's quiz results
 * (attempts, passed, locked) on every quiz, or on the quizzes attached to the documents given,
 * marks their submitted sessions invalidated, audits it, and refreshes the course stages on
 * those quizzes' documents (a required quiz is then incomplete_assessment again).
 */
export async function invalidateUser(
  caller: Caller,
  userid: number,
  input: InvalidateUserInput,
  impersonator?: number,
) {
  if (!(await getUser(userid))) throw new NotFoundError(`No user with userid ${userid}`);
  let progress = await listUserProgress(userid);
  if (input.documents) {
    const links = await Promise.all(input.documents.map((doc) => currentQuizLink(doc.doctype, doc.docid)));
    const quizids = new Set(links.flatMap((link) => (link ? [link.quizid] : [])));
    progress = progress.filter((item) => quizids.has(item.quizid));
  }
  const affected = progress
    .filter((item) => item.attempts > 0 || item.passed || item.locked)
    .map((item) => item.quizid);
  const now = nowSeconds();
  for (let start = 0; start < affected.length; start += RESETS_PER_TRANSACTION) {
    const chunk = affected.slice(start, start + RESETS_PER_TRANSACTION);
    await appendAudit(
      {
        action: 'quiz.results_invalidated',
        ...auditActor(caller),
        impersonator_userid: impersonator ?? null,
        subjects: [auditSubject.user(userid)],
        details: { quizids: chunk, documents: input.documents ?? 'all' },
      },
      resetProgressWrites(userid, chunk, now),
    );
  }
  const quizSet = new Set(affected);
  const sessions = (await listAllUserSessions(userid)).filter(
    (session) => quizSet.has(session.quizid) && session.submitted && !session.invalidated,
  );
  for (let start = 0; start < sessions.length; start += 25) {
    await Promise.all(
      sessions.slice(start, start + 25).map((session) => markSessionInvalidated(session.quiz_sessionid)),
    );
  }
  const documents = (await Promise.all(affected.map(documentsOfQuiz))).flat();
  await refreshDocumentsOfQuizzes(userid, affected);
  return {
    userid,
    quizids: affected,
    quiz_sessionids: sessions.map((session) => session.quiz_sessionid),
    documents: [...new Map(documents.map((doc) => [`${doc.doctype}#${doc.docid}`, doc])).values()],
  };
}
