/**
 * Course assignments with their trainees' progress: per course (ids from the courses crawler)
 * the active assignments (assignment item, assignee claim, team side index), one training row
 * per (assignment, trainee) with its stage snapshots and list places, each trainee's coverage
 * and enrollment, and the last completion of every stage document seen; then the trainees' and
 * teams' stored summaries. All written through the training entities' own builders.
 *
 * Read as an Admin: GET /course_assignments/completion/course/{wikiid} (the active assignments),
 * /course_assignments/courseAssignmentDetails/{id} (the record and its stored counts),
 * /course_assignments/{id} (each trainee's stage entries), /course_assignees/course/{wikiid}/users
 * and …/teams/{teamid} (the stored rows), the documents' release lists (which release a
 * completion was made under), and /course_assignments/individualSummaries and teamSummaries.
 */
import { itemsOfWrites, SourceError, type CrawlContext, type ResourceCrawler } from '../crawl.ts';
import { isDenied } from './training-common.ts';
import { assignmentCreateWrites, type AssignmentRecord } from '../../../../shared/db/entities/course-assignment.ts';
import {
  coverageGainWrites,
  rowPutWrite,
  summaryPutWrite,
  type RowStatus,
  type StageSnapshot,
  type TrainingRowRecord,
} from '../../../../shared/db/entities/training-row.ts';
import { completionWrite, type CompletionRecord } from '../../../../shared/db/entities/training-record.ts';
import type { StageDoctype } from '../../../../shared/db/entities/course.ts';
import { padId } from '../../../../shared/db/keys.ts';
import { sortedRefWrites } from '../../../../shared/db/sorted-refs.ts';
import type { StageReason, StageStatus } from '../../../../shared/domain/stage-status.ts';
import { usersCollectionOf, userRowPlacement } from '../../../../shared/training/rows.ts';
import type {
  AssigneeRowView,
  AssignmentDetailsView,
  AssignmentView,
  ProgressView,
  StageEntryView,
  TeamAssigneeView,
} from '../../../../shared/views/course-assignment-views.ts';
import type {
  CourseReportView,
  TeamSummaryReportView,
  UserSummaryReportView,
} from '../../../../shared/views/training-report-views.ts';
import type { ReleaseView } from '../../../../shared/views/release-views.ts';
import { DEFAULT_AVATAR_PATH } from '../../../../shared/domain/media.ts';

/** Stored attributes API 2.0 does not hand out, and what the crawler writes instead. */
export const ASSIGNMENT_UNEXPOSED = {
  TrainingRow: { version: 'internal optimistic-lock counter: starts again at 1' },
  StageCompletion: {
    version: 'internal optimistic-lock counter: starts again at 1',
    invalidated_at: "not shown: an invalidated stage's completion is marked invalidated at its last moment",
    invalidated_by: 'not shown: null',
  },
} as const;

const PAGE = 200;

type Row = Omit<AssigneeRowView, 'is_overdue'>;

async function all<T>(context: CrawlContext, path: string, itemsOf: (body: unknown) => T[]): Promise<T[]> {
  const found: T[] = [];
  for await (const page of context.api.pages<T>(path, { pageSize: PAGE, itemsOf })) found.push(...page);
  return found;
}

/** Rows of a `page`/`limit` list (the assignee lists page by number, not offset). */
async function numberedPages<T>(context: CrawlContext, path: string, itemsOf: (body: unknown) => T[]): Promise<T[]> {
  const found: T[] = [];
  for (let page = 1; ; page++) {
    const items = itemsOf(await context.api.get(path, { page, limit: PAGE }));
    found.push(...items);
    if (items.length < PAGE) return found;
  }
}

/** The reason the stage rule gave a status, from what the entry shows (stage_status when the site shows it). */
export function reasonOf(entry: StageEntryView): StageReason {
  if (entry.stage_status) return entry.stage_status.reason;
  const status = (entry.status ?? 'pending') as StageStatus;
  const completion = entry.last_completion;
  const assessed = entry.stage.stage_assessmentid !== null;
  switch (status) {
    case 'pending':
      return 'not_started';
    case 'started':
      return completion?.end_date === null ? 'doc_in_progress' : 'incomplete_assessment';
    case 'completed':
      if (completion?.manager_override_userid) return 'manager_override';
      return assessed ? 'signoff_approved' : 'completed';
    case 'expired':
      return 'recurrence_expired';
    case 'invalidated':
      return entry.stage.strictness === null ? 'manager_override' : 'newer_release';
    case 'blocked':
      return assessed ? 'requested_signoff' : 'quiz_locked';
  }
}

function snapshotsOf(entries: StageEntryView[]): StageSnapshot[] {
  return entries.map((entry) => ({
    course_stageid: entry.course_stageid,
    status: (entry.status ?? 'pending') as StageStatus,
    reason: reasonOf(entry),
    end_date: entry.last_completion?.end_date ?? null,
  }));
}

/**
 * The source's default avatar is no avatar here: the destination shows its own default (decision
 * 195), as the users crawler does for a user's image.
 */
function ownAvatar(url: string | null): string | null {
  if (!url) return null;
  const path = URL.canParse(url) ? new URL(url).pathname : url;
  return path.startsWith(DEFAULT_AVATAR_PATH) ? null : url;
}

export function rowRecordOf(assignment: AssignmentRecord, row: Row, entries: StageEntryView[]): TrainingRowRecord {
  const record: Omit<TrainingRowRecord, 'placement'> = {
    course_assignmentid: assignment.course_assignmentid,
    wikiid: assignment.wikiid,
    userid: row.userid,
    teamid: assignment.assignee_teamid,
    username: row.username,
    username_search: row.username.toLowerCase(),
    user_avatar: ownAvatar(row.user_avatar),
    assignment_date: row.assignment_date,
    due_date: row.due_date,
    stages: snapshotsOf(entries),
    total_stages: row.total_stages,
    completed_stages: row.completed_stages,
    status: row.status_code as RowStatus,
    course_completion_date: row.course_completion_date,
    recurrent_date: row.recurrent_date,
    active: assignment.cancelled ? 0 : 1,
    version: 1,
  };
  const placement = record.active && assignment.assignee_userid !== null ? userRowPlacement(record) : null;
  return { ...record, placement };
}

function assignmentRecordOf(details: AssignmentDetailsView): AssignmentRecord {
  return {
    course_assignmentid: details.course_assignmentid,
    wikiid: details.wikiid,
    assignee_userid: details.assignee_userid,
    assignee_teamid: details.assignee_teamid,
    assignee_name: details.assignee_name,
    due_within: details.due_within,
    created_date: details.created_date,
    created_by: details.created_by,
    ...(details.created_by_token ? { created_by_token: details.created_by_token } : {}),
    cancelled: details.cancelled ? 1 : 0,
    cancelled_at: details.cancelled_at,
    cancelled_by: details.cancelled_by,
    ...(details.cancelled_by_token ? { cancelled_by_token: details.cancelled_by_token } : {}),
    cancellation_reason: details.cancellation_reason,
    rows_total: details.progress.users,
    rows_completed: details.progress.completed,
    rows_in_progress: details.progress.in_progress,
  };
}

/** Released versions of a document, by release date: which one a completion was made under. */
class ReleaseHistory {
  private readonly byDoc = new Map<string, Promise<Array<{ at: number; major: number; minor: number }>>>();
  constructor(private readonly context: CrawlContext) {}

  private releases(doctype: StageDoctype, docid: number) {
    const key = `${doctype}#${docid}`;
    if (!this.byDoc.has(key)) this.byDoc.set(key, this.read(doctype, docid));
    return this.byDoc.get(key)!;
  }

  private async read(doctype: StageDoctype, docid: number) {
    if (doctype === 'external_training_module') return [];
    const path = doctype === 'guide' ? `/guides/${docid}/releases` : `/wikis/${docid}/releases`;
    const body = await this.context.api.find<{ releases: ReleaseView[] }>(path);
    return (body?.releases ?? []).flatMap((release) =>
      release.release_date !== null && release.major !== null
        ? [{ at: release.release_date, major: release.major, minor: release.minor ?? 0 }]
        : [],
    );
  }

  /** The latest release made public by `at` (what the service kept when the completion ended). */
  async at(doctype: StageDoctype, docid: number, at: number | null): Promise<{ major: number; minor: number } | null> {
    if (at === null) return null;
    const released = (await this.releases(doctype, docid)).filter((release) => release.at <= at);
    released.sort((a, b) => a.major - b.major || a.minor - b.minor);
    return released.at(-1) ?? null;
  }
}

async function completionOf(
  userid: number,
  entry: StageEntryView,
  releases: ReleaseHistory,
): Promise<CompletionRecord | undefined> {
  const last = entry.last_completion;
  if (!last) return undefined;
  const release = await releases.at(last.doctype, last.docid, last.end_date);
  const invalidated = entry.status === 'invalidated' && reasonOf(entry) === 'manager_override';
  return {
    course_assignment_stage_completionid: last.course_assignment_stage_completionid,
    userid,
    doctype: last.doctype,
    docid: last.docid,
    course_stage_doc_revisionid: last.course_stage_doc_revisionid,
    manager_override_userid: last.manager_override_userid,
    init_date: last.init_date,
    end_date: last.end_date,
    work_log_entryid: last.work_log_entryid,
    release_major: release?.major ?? null,
    release_minor: release?.minor ?? null,
    invalidated_at: invalidated ? (last.end_date ?? last.init_date) : null,
    invalidated_by: null,
    version: 1,
  };
}

interface CourseCrawl {
  context: CrawlContext;
  releases: ReleaseHistory;
  /** Completion keys already written in this run: a document can be a stage of several courses. */
  writtenCompletions: Set<string>;
}

async function courseItems(crawl: CourseCrawl, wikiid: number, assignmentIds: number[]) {
  const { context } = crawl;
  const userRows = await numberedPages<Row>(
    context,
    `/course_assignees/course/${wikiid}/users`,
    (body) => (body as { response: Row[] }).response,
  );
  const items: Record<string, unknown>[] = [];
  const coverage = new Map<number, number>();
  for (const id of assignmentIds) {
    const [details, view] = await Promise.all([
      context.api.find<AssignmentDetailsView>(`/course_assignments/courseAssignmentDetails/${id}`),
      context.api.find<AssignmentView>(`/course_assignments/${id}`),
    ]);
    if (!details || !view) {
      context.report.skipped(`course assignment ${id}`, 'gone from the source while it was read');
      continue;
    }
    const assignment = assignmentRecordOf(details);
    const rows =
      assignment.assignee_teamid === null
        ? userRows.filter((row) => row.course_assignmentid === id)
        : await numberedPages<Row>(
            context,
            `/course_assignees/course/${wikiid}/teams/${assignment.assignee_teamid}`,
            (body) => (body as { response: TeamAssigneeView }).response.members,
          );
    const entriesOf = new Map(view.completion_status.map((status) => [status.userid, status.stages]));
    const writes = assignmentCreateWrites(assignment);
    for (const row of rows) {
      const entries = entriesOf.get(row.userid) ?? [];
      const record = rowRecordOf(assignment, row, entries);
      writes.push(rowPutWrite(record, null));
      if (record.placement) {
        writes.push(...sortedRefWrites(usersCollectionOf(wikiid), padId(id), null, record.placement));
      }
      if (record.active) coverage.set(row.userid, (coverage.get(row.userid) ?? 0) + 1);
      for (const entry of entries) {
        const completion = await completionOf(row.userid, entry, crawl.releases);
        if (!completion) continue;
        context.sink.idSeen('stage_completion', completion.course_assignment_stage_completionid);
        const key = `${completion.userid}#${completion.doctype}#${completion.docid}`;
        if (crawl.writtenCompletions.has(key)) continue;
        crawl.writtenCompletions.add(key);
        writes.push(completionWrite(completion, null));
      }
    }
    items.push(...itemsOfWrites(writes));
  }
  for (const [userid, count] of coverage) items.push(...itemsOfWrites(coverageGainWrites(userid, wikiid, count - 1)));
  return items;
}

async function crawlCourse(crawl: CourseCrawl, wikiid: number): Promise<void> {
  const { context } = crawl;
  let assignments: CourseReportView['assignments'];
  try {
    assignments = await all(
      context,
      `/course_assignments/completion/course/${wikiid}`,
      (body) => (body as CourseReportView).assignments,
    );
  } catch (error) {
    if (error instanceof SourceError && error.status === 404) return; // the course went meanwhile
    throw error;
  }
  for (const assignment of assignments) context.sink.idSeen('course_assignment', assignment.course_assignmentid);
  const unit = `course-assignments:${wikiid}`;
  if (context.isDone(unit)) return;
  const ids = [...new Set(assignments.map((assignment) => assignment.course_assignmentid))];
  await context.sink.items(await courseItems(crawl, wikiid, ids));
  await context.completed(unit);
}

async function crawlSummaries(context: CrawlContext): Promise<void> {
  const unit = 'training-summaries';
  if (context.isDone(unit)) return;
  const users = await all(
    context,
    '/course_assignments/individualSummaries',
    (body) => body as UserSummaryReportView[],
  );
  const teams = await all(context, '/course_assignments/teamSummaries', (body) => body as TeamSummaryReportView[]);
  const counts = (summary: ProgressView) => ({
    rows_total: summary.users,
    rows_completed: summary.completed,
    rows_in_progress: summary.in_progress,
  });
  await context.sink.items(
    itemsOfWrites([
      ...users.map((summary) => summaryPutWrite({ userid: summary.userid }, counts(summary))),
      ...teams.map((summary) => summaryPutWrite({ teamid: summary.teamid }, counts(summary))),
    ]),
  );
  await context.completed(unit);
}

export const assignmentsCrawler: ResourceCrawler = {
  name: 'assignments',
  after: ['courses', 'users', 'teams', 'guides', 'wikis'],
  async crawl(context) {
    const crawl: CourseCrawl = { context, releases: new ReleaseHistory(context), writtenCompletions: new Set() };
    try {
      for (const wikiid of context.known.all('course')) await crawlCourse(crawl, wikiid);
      await crawlSummaries(context);
    } catch (error) {
      if (!isDenied(error)) throw error;
      context.report.unexposed('course assignments and progress', 'the source refused them to this account');
      return;
    }
    context.report.unexposed(
      'cancelled course assignments and their rows',
      'API 2.0 lists active assignments only; cancelled ones stay on the source',
    );
    context.report.unexposed('earlier attempts at stage documents', 'only the last completion is shown');
  },
};
