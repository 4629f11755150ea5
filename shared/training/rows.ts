/**
 * Stored progress rows (training-row.ts) and the aggregates that move with them.
 * - A row is computed from the stage outcomes (stage-facts.ts) and written on condition of its
 *   version, together with the count changes of its assignment, its course, the trainee's
 *   summary and (team rows) the team's summary, and its place in the course's user-assignee
 *   orders, so stored aggregates always equal the sum of the stored rows.
 * - Activation (an assignment starts covering a user) and deactivation (cancelled, or the member
 *   left the team) also move the user's coverage of the course and the enrollment item.
 * - Fan-outs (a team of many members) go in transactions of ROWS_PER_TRANSACTION users, one
 *   after another, so the shared counters see one writer at a time.
 */
import { padId } from '../db/keys.ts';
import { ROW_AVATAR_SIZE } from '../views/user-views.ts';
import { nowSeconds } from '../clock.ts';
import { transactWrite, type LabelledWrite } from '../db/transactions.ts';
import { isLostRace, LostRace, retryOnLostRace } from '../db/retry.ts';
import { NULL_LAST, sortedRefWrites, type SortedPlacement } from '../db/sorted-refs.ts';
import { courseCounterWrite, getCourses, reindexCourse, type CourseRecord } from '../db/entities/course.ts';
import { assignmentCounterWrite, getAssignments, type AssignmentRecord } from '../db/entities/course-assignment.ts';
import { getUsers, type UserRecord } from '../db/entities/user.ts';
import {
  countsDelta,
  coverageGainWrites,
  coverageLossWrites,
  getCoverageCount,
  getRows,
  listDueRows,
  rowCounts,
  rowDeleteWrite,
  rowPutWrite,
  teamSummaryWrite,
  userSummaryWrite,
  type RowCounts,
  type RowStatus,
  type TrainingRowRecord,
} from '../db/entities/training-row.ts';
import { recurrenceDeadline } from '../domain/stage-status.ts';
import { canonicalJson } from '../domain/canonical-json.ts';
import { stageOutcomes, type StageOutcome } from './stage-facts.ts';
import { log } from '../observability/logger.ts';
import { outboxPuts } from '../db/entities/outbox.ts';
import { rowEvents } from '../domain/events/training-events.ts';
import { emitOverdueEvents } from './overdue-events.ts';

export const ROWS_PER_TRANSACTION = 20;
const MAX_ATTEMPTS = 8;

export const usersCollectionOf = (wikiid: number) => `COURSE#${wikiid}#USERS`;
export const USER_ORDERS = [
  'username',
  'status',
  'stage_progress',
  'assignment_date',
  'due_date',
  'course_completion_date',
  'recurrence_date',
] as const;
export type UserOrder = (typeof USER_ORDERS)[number];
const STATUS_RANK: Record<RowStatus, string> = { not_started: '0', in_progress: '1', completed: '2' };

export function avatarOf(user: UserRecord | undefined): string | null {
  const image = user?.image as Record<string, unknown> | null | undefined;
  const url = image?.[ROW_AVATAR_SIZE] ?? image?.thumbnail;
  return typeof url === 'string' ? url : null;
}

/** The row's counts, status and dates from its stage outcomes. */
export function summarizeOutcomes(outcomes: StageOutcome[]) {
  const completed = outcomes.filter((outcome) => outcome.state.status === 'completed');
  const allDone = outcomes.length > 0 && completed.length === outcomes.length;
  const untouched = outcomes.every((outcome) => outcome.state.status === 'pending');
  const status: RowStatus = allDone ? 'completed' : untouched ? 'not_started' : 'in_progress';
  const deadlines = completed
    .map((outcome) =>
      outcome.completion?.end_date
        ? recurrenceDeadline(
            { ...outcome.stage, requires_quiz: false, requires_signoff: false },
            outcome.completion.end_date,
          )
        : null,
    )
    .filter((deadline): deadline is number => deadline !== null);
  return {
    stages: outcomes.map((outcome) => ({
      course_stageid: outcome.stage.course_stageid,
      status: outcome.state.status,
      reason: outcome.state.reason,
      end_date: outcome.completion?.end_date ?? null,
    })),
    total_stages: outcomes.length,
    completed_stages: completed.length,
    status,
    course_completion_date: allDone ? Math.max(...completed.map((outcome) => outcome.completion?.end_date ?? 0)) : null,
    recurrent_date: deadlines.length ? Math.min(...deadlines) : null,
  };
}

/** Where a user-assignment row sits in the course's user-assignee orders. */
export function userRowPlacement(row: Omit<TrainingRowRecord, 'placement'>): SortedPlacement {
  const date = (value: number | null) => (value === null ? NULL_LAST : padId(value));
  const progress = row.total_stages === 0 ? 0 : Math.round((row.completed_stages / row.total_stages) * 1_000_000);
  return {
    values: {
      username: row.username.toLowerCase(),
      status: `${STATUS_RANK[row.status]}#${row.username.toLowerCase()}`,
      stage_progress: padId(progress),
      assignment_date: padId(row.assignment_date),
      due_date: date(row.due_date),
      course_completion_date: date(row.course_completion_date),
      recurrence_date: date(row.recurrent_date),
    },
    attributes: {
      course_assignmentid: row.course_assignmentid,
      userid: row.userid,
      status: row.status,
      username_search: row.username.toLowerCase(),
    },
  };
}

export interface RowBase {
  assignment: AssignmentRecord;
  userid: number;
  user: UserRecord | undefined;
  assignment_date: number;
}

/** A row as it should be now: active, with `version` one past `previous` (0 for a new row). */
export function buildRow(
  base: RowBase,
  outcomes: StageOutcome[],
  previous: TrainingRowRecord | null,
): TrainingRowRecord {
  const { assignment } = base;
  const row: Omit<TrainingRowRecord, 'placement'> = {
    course_assignmentid: assignment.course_assignmentid,
    wikiid: assignment.wikiid,
    userid: base.userid,
    teamid: assignment.assignee_teamid,
    username: base.user?.username ?? previous?.username ?? `user ${base.userid}`,
    username_search: (base.user?.username ?? previous?.username ?? '').toLowerCase(),
    user_avatar: base.user ? avatarOf(base.user) : (previous?.user_avatar ?? null),
    assignment_date: base.assignment_date,
    due_date: assignment.due_within === null ? null : base.assignment_date + assignment.due_within,
    ...summarizeOutcomes(outcomes),
    active: assignment.cancelled ? 0 : 1,
    version: (previous?.version ?? 0) + 1,
  };
  const placement = row.active && assignment.assignee_userid !== null ? userRowPlacement(row) : null;
  return { ...row, placement };
}

/** Everything besides the row item that moves when a row goes from `before` to `after`. */
function aggregateWrites(
  before: TrainingRowRecord | null,
  after: TrainingRowRecord | null,
): { delta: RowCounts; refs: LabelledWrite[] } {
  const sample = (after ?? before)!;
  const delta = countsDelta(rowCounts(before), rowCounts(after));
  const refs = sortedRefWrites(
    usersCollectionOf(sample.wikiid),
    padId(sample.course_assignmentid),
    before?.placement ?? null,
    after?.placement ?? null,
  );
  return { delta, refs };
}

function sumCounts(deltas: RowCounts[]): RowCounts {
  return deltas.reduce(
    (sum, delta) => ({
      rows_total: sum.rows_total + delta.rows_total,
      rows_completed: sum.rows_completed + delta.rows_completed,
      rows_in_progress: sum.rows_in_progress + delta.rows_in_progress,
    }),
    { rows_total: 0, rows_completed: 0, rows_in_progress: 0 },
  );
}

/** The shared counters of one assignment after its rows' counts moved by `delta`. */
function sharedCounterWrites(assignment: AssignmentRecord, delta: RowCounts): LabelledWrite[] {
  return present(
    assignmentCounterWrite(assignment.course_assignmentid, delta),
    courseCounterWrite(assignment.wikiid, delta),
    assignment.assignee_teamid !== null ? teamSummaryWrite(assignment.assignee_teamid, delta) : undefined,
  );
}

const present = (...writes: Array<LabelledWrite | undefined>): LabelledWrite[] =>
  writes.filter((write): write is LabelledWrite => write !== undefined);

/** Row transactions re-read the rows and counters they change when another write came first. */
const RACE_OPTIONS = {
  attempts: MAX_ATTEMPTS + 1,
  message: 'Training rows kept changing while they were updated; try again',
};

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

/**
 * Starts covering users with an assignment (new assignment, new team members): each gets a row
 * computed from their current facts, their coverage and enrollment, and the counters move.
 * Users who already have a row of this assignment are left as they are. Idempotent.
 */
export async function activateRows(
  assignment: AssignmentRecord,
  course: CourseRecord,
  members: Array<{ userid: number; assignment_date: number }>,
): Promise<void> {
  for (const chunk of chunks(members, ROWS_PER_TRANSACTION)) {
    await retryOnLostRace(async () => {
      const userids = chunk.map((member) => member.userid);
      const [existing, users, coverage, outcomes] = await Promise.all([
        getRows(userids.map((userid) => ({ course_assignmentid: assignment.course_assignmentid, userid }))),
        getUsers(userids),
        Promise.all(userids.map((userid) => getCoverageCount(userid, assignment.wikiid))),
        stageOutcomes(userids, course.stages),
      ]);
      const have = new Set(existing.map((row) => row.userid));
      const userOf = new Map(users.map((user) => [user.userid, user]));
      const writes: LabelledWrite[] = [];
      const deltas: RowCounts[] = [];
      chunk.forEach((member, index) => {
        if (have.has(member.userid)) return;
        const row = buildRow(
          {
            assignment,
            userid: member.userid,
            user: userOf.get(member.userid),
            assignment_date: member.assignment_date,
          },
          outcomes.get(member.userid)!,
          null,
        );
        const { delta, refs } = aggregateWrites(null, row);
        deltas.push(delta);
        writes.push(
          rowPutWrite(row, null),
          ...coverageGainWrites(member.userid, assignment.wikiid, coverage[index]),
          ...present(userSummaryWrite(member.userid, delta)),
          ...refs,
        );
      });
      if (writes.length === 0) return;
      await transactWrite([...writes, ...sharedCounterWrites(assignment, sumCounts(deltas))]);
    }, RACE_OPTIONS);
  }
  await reindexCourse(assignment.wikiid);
}

/**
 * Stops covering users: on cancel the rows stay (inactive, for the record); a member who left
 * the team loses the row (their completions stay). Coverage, enrollment and counters follow.
 */
export async function deactivateRows(
  assignment: AssignmentRecord,
  userids: number[],
  mode: 'cancel' | 'left',
): Promise<void> {
  for (const chunk of chunks(userids, ROWS_PER_TRANSACTION)) {
    await retryOnLostRace(async () => {
      const rows = await getRows(
        chunk.map((userid) => ({ course_assignmentid: assignment.course_assignmentid, userid })),
      );
      const active = rows.filter((row) => row.active);
      const coverage = await Promise.all(active.map((row) => getCoverageCount(row.userid, assignment.wikiid)));
      const writes: LabelledWrite[] = [];
      const deltas: RowCounts[] = [];
      active.forEach((row, index) => {
        const after: TrainingRowRecord | null =
          mode === 'cancel' ? { ...row, active: 0, placement: null, version: row.version + 1 } : null;
        const { delta, refs } = aggregateWrites(row, after);
        deltas.push(delta);
        writes.push(
          after ? rowPutWrite(after, row.version) : rowDeleteWrite(row),
          ...coverageLossWrites(row.userid, assignment.wikiid, coverage[index]),
          ...present(userSummaryWrite(row.userid, delta)),
          ...refs,
        );
      });
      if (writes.length === 0) return;
      await transactWrite([...writes, ...sharedCounterWrites(assignment, sumCounts(deltas))]);
    }, RACE_OPTIONS);
  }
  await reindexCourse(assignment.wikiid);
}

/**
 * Recomputes rows from the current facts and stores those that changed (each on condition of
 * the version read; a lost race reads again). Inactive and vanished rows are skipped.
 */
export async function refreshRows(
  keys: Array<{ course_assignmentid: number; userid: number }>,
  now = nowSeconds(),
): Promise<void> {
  if (keys.length === 0) return;
  let pending = keys;
  const touchedCourses = new Set<number>();
  // Each row commits on its own; only the rows that lost a race are read again.
  await retryOnLostRace(
    async () => {
      const rows = (await getRows(pending)).filter((row) => row.active);
      const assignments = new Map(
        (await getAssignments([...new Set(rows.map((row) => row.course_assignmentid))])).map((a) => [
          a.course_assignmentid,
          a,
        ]),
      );
      const courses = new Map(
        (await getCourses([...new Set(rows.map((row) => row.wikiid))])).map((course) => [course.wikiid, course]),
      );
      const users = new Map(
        (await getUsers([...new Set(rows.map((row) => row.userid))])).map((user) => [user.userid, user]),
      );
      const retry: typeof keys = [];
      for (const [wikiid, course] of courses) {
        const courseRows = rows.filter((row) => row.wikiid === wikiid);
        const outcomes = await stageOutcomes([...new Set(courseRows.map((row) => row.userid))], course.stages, now);
        for (const row of courseRows) {
          const assignment = assignments.get(row.course_assignmentid);
          if (!assignment || assignment.cancelled) continue;
          const next = buildRow(
            { assignment, userid: row.userid, user: users.get(row.userid), assignment_date: row.assignment_date },
            outcomes.get(row.userid)!,
            row,
          );
          if (sameRow(row, next)) continue;
          const { delta, refs } = aggregateWrites(row, next);
          try {
            await transactWrite([
              rowPutWrite(next, row.version),
              ...outboxPuts(rowEvents(row, next)),
              ...refs,
              ...present(userSummaryWrite(row.userid, delta)),
              ...sharedCounterWrites(assignment, delta),
            ]);
            if (delta.rows_completed || delta.rows_in_progress || delta.rows_total) touchedCourses.add(wikiid);
          } catch (error) {
            if (!isLostRace(error)) throw error;
            retry.push({ course_assignmentid: row.course_assignmentid, userid: row.userid });
          }
        }
      }
      pending = retry;
      // Only the rows that lost go round again.
      if (pending.length > 0) throw new LostRace(`${pending.length} training rows lost a race`);
    },
    {
      attempts: MAX_ATTEMPTS,
      onExhausted: () => {
        // The facts are committed; the next refresh of these rows (any event, or the due queue) catches up.
        log().warn('Training rows kept losing races and were left for the next refresh', { rows: pending });
      },
    },
  );
  await Promise.all([...touchedCourses].map(reindexCourse));
}

function sameRow(a: TrainingRowRecord, b: TrainingRowRecord): boolean {
  return canonicalJson({ ...a, version: 0 }) === canonicalJson({ ...b, version: 0 });
}

/**
 * Rows whose recurrence deadline has passed are refreshed before aggregates are read, a bounded
 * number per request, so time moves stored counts without a sweep (each expiry is handled once).
 */
export async function refreshDueRows(limit = 25, now = nowSeconds()): Promise<void> {
  const due = await listDueRows(now, limit);
  if (due.length > 0) await refreshRows(due, now);
}

/**
 * Rows as they are now: those a recurrence has expired since they were stored are refreshed
 * first (a page's worth at most), the others are returned as read.
 */
export async function currentRows(rows: TrainingRowRecord[], now = nowSeconds()): Promise<TrainingRowRecord[]> {
  await emitOverdueEvents(rows, now);
  const due = rows.filter((row) => row.active && row.recurrent_date !== null && row.recurrent_date <= now);
  if (due.length === 0) return rows;
  const keys = due.map((row) => ({ course_assignmentid: row.course_assignmentid, userid: row.userid }));
  await refreshRows(keys, now);
  const fresh = new Map((await getRows(keys)).map((row) => [`${row.course_assignmentid}|${row.userid}`, row]));
  return rows.map((row) => fresh.get(`${row.course_assignmentid}|${row.userid}`) ?? row);
}
