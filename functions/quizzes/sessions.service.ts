/**
 * Quiz sessions: cancel, results, lists by visibility, bulk cancel and an Admin's
 * force-invalidation of a user's results. Save and submit live in shared/training/quiz-answers.ts
 * (the offline journal submits too). A user has at most one open session per quiz; the progress
 * item guards it in DynamoDB (shared/db/entities/quiz-session.ts).
 */
import { ForbiddenError, NotFoundError } from '../../shared/domain/errors.ts';
import { auditActor, isAdmin, type Caller } from '../../shared/domain/caller.ts';
import { padId } from '../../shared/db/keys.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { queryPage, type PageQuery } from '../../shared/db/paging.ts';
import { mergedPageDescending } from '../../shared/db/merged-pages.ts';
import { isLostRace } from '../../shared/db/retry.ts';
import { clientGuidHolder } from '../../shared/db/client-guid.ts';
import { appendAudit, auditSubject } from '../../shared/db/audit.ts';
import { getTeams, listMembers } from '../../shared/db/entities/team.ts';
import { getUser, getUsers } from '../../shared/db/entities/user.ts';
import { currentQuizLink, documentsOfQuiz } from '../../shared/db/entities/quiz.ts';
import {
  allSessionsCollection,
  cancelSession,
  getProgress,
  getSession,
  getSessions,
  listAllUserSessions,
  listUserProgress,
  markSessionInvalidated,
  quizSessionsCollection,
  resetProgressWrites,
  sessionFromItem,
  sessionidOf,
  sessionLinkFromItem,
  userSessionsCollection,
  type QuizSessionRecord,
} from '../../shared/db/entities/quiz-session.ts';
import { refreshDocumentsOfQuizzes } from '../../shared/training/quiz-answers.ts';
import { quizidsMatching, requireQuiz } from './quizzes.service.ts';
import { sessionView, submissionView } from '../../shared/views/quiz-views.ts';
import type { InvalidateUserInput, SessionListQuery } from './quizzes.schemas.ts';

/** Members read per owned team when a Team Owner lists sessions. */
const MAX_MEMBERS_PER_TEAM = 1000;

async function usernameOf(userid: number): Promise<string | null> {
  return (await getUser(userid))?.username ?? null;
}

/** Save and submit: shared/training/quiz-answers.ts (the journal submits with it too). */
export { save, submit } from '../../shared/training/quiz-answers.ts';

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
  if (query.client_guid !== undefined) return sessionOfGuid(caller, query.client_guid, query.offset);
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

/** The caller's submission made under a client guid, as a list of at most one (decision 224). */
async function sessionOfGuid(caller: Caller, guid: string, offset: number) {
  const holder = offset > 0 ? undefined : await clientGuidHolder('quiz_answer', caller.userid, guid);
  const session = holder ? await getSession(Number(holder.ref)) : undefined;
  return { quizSessions: session ? [sessionView(session, caller.username)] : [] };
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
