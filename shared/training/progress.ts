/**
 * CONTRACT (docs/courses.md "Progress"): how training progress is recorded from anywhere —
 * work-log start and finish, quiz submits, signoffs and the course-assignment endpoints.
 *
 * A trainee's progress on a document is one record, their last completion of it
 * (training-record.ts); every stage pointing at the document, in every course assigned to
 * them, reads it. Each change of that record is appended to the trainee's audit chain in the
 * same transaction. Afterwards the trainee's stored rows whose course has a stage on the
 * document are recomputed (rows.ts), which moves the stored aggregates.
 *
 * Nothing is recorded for a trainee without an active assignment stage on the document: that
 * costs one Query (their active rows) and nothing else.
 */
import { AUDIT_CHAIN_LABELS, appendAudit, auditSubject } from '../db/audit.ts';
import { nextId } from '../db/counters.ts';
import { nowSeconds } from '../clock.ts';
import { labelsIn, retryOnLostRace } from '../db/retry.ts';
import { getCourses, type CourseRecord, type CourseStageRecord, type StageDoctype } from '../db/entities/course.ts';
import { completionWrite, getCompletion, type CompletionRecord, type DocRef } from '../db/entities/training-record.ts';
import { completedGuideMarkWrite } from '../db/entities/guide-mark.ts';
import { listTraineeRows, type TrainingRowRecord } from '../db/entities/training-row.ts';
import { latestReleases, stageDocument } from './documents.ts';
import { refreshRows } from './rows.ts';
import { deriveLevels } from './level-grants.ts';
import { settleAcknowledgements } from './acknowledgement-settle.ts';
import { outboxPuts } from '../db/entities/outbox.ts';
import { stageEvents } from '../domain/events/training-events.ts';
import type { DomainEvent } from '../domain/events/catalogue.ts';

export interface StageOnDocument {
  row: TrainingRowRecord;
  course: CourseRecord;
  stage: CourseStageRecord;
}

/** The trainee's active assignment stages that point at the document. */
export async function activeStagesOn(userid: number, doc: DocRef): Promise<StageOnDocument[]> {
  const rows = await listTraineeRows(userid);
  if (rows.length === 0) return [];
  const courses = new Map(
    (await getCourses([...new Set(rows.map((row) => row.wikiid))])).map((course) => [course.wikiid, course]),
  );
  return rows.flatMap((row) => {
    const course = courses.get(row.wikiid);
    const stages = course?.stages.filter((stage) => stage.doctype === doc.doctype && stage.docid === doc.docid) ?? [];
    return stages.map((stage) => ({ row, course: course!, stage }));
  });
}

/** Recomputes the stored rows behind these stages (each row once). */
async function refreshStages(stages: StageOnDocument[]): Promise<void> {
  const keys = new Map(
    stages.map(({ row }) => [
      `${row.course_assignmentid}|${row.userid}`,
      { course_assignmentid: row.course_assignmentid, userid: row.userid },
    ]),
  );
  await refreshRows([...keys.values()]);
  // Courses may map a completed stage or course to a level (docs/competency.md).
  await deriveLevels([...keys.values()]);
}

export const isInProgress = (completion: CompletionRecord | undefined): completion is CompletionRecord =>
  completion !== undefined && completion.end_date === null && completion.invalidated_at === null;

export interface CompletionChange {
  action: 'training.started' | 'training.completed' | 'training.invalidated';
  actor_userid: number | null;
  impersonator_userid?: number | null;
  /** Events written in the change's transaction (docs/events.md). */
  events?: (record: CompletionRecord) => DomainEvent[];
}

/**
 * A guide completed in training is a completed guide for the user (GET /user/completions, the
 * guide's `completed`): the mark is written in the completion's transaction. Invalidation and
 * later releases change the stage status, not the fact that the user once completed the guide.
 */
function completionMarkWrites(record: CompletionRecord, change: CompletionChange) {
  if (change.action !== 'training.completed' || record.doctype !== 'guide' || record.end_date === null) return [];
  return [completedGuideMarkWrite(record.userid, record.docid, record.end_date)];
}

/**
 * Replaces the trainee's last completion of a document with `next(current)` (undefined: no
 * change), appending the change to the trainee's audit chain in the same transaction; a
 * concurrent change makes it read again. Returns the record now stored (or the unchanged one).
 */
export async function changeCompletion(
  userid: number,
  doc: DocRef,
  next: (current: CompletionRecord | undefined) => Promise<CompletionRecord | undefined>,
  change: CompletionChange,
): Promise<CompletionRecord | undefined> {
  return retryOnLostRace(
    async () => {
      const current = await getCompletion(userid, doc);
      const record = await next(current);
      if (!record) return current;
      await appendAudit(
        {
          action: change.action,
          actor_userid: change.actor_userid,
          impersonator_userid: change.impersonator_userid ?? null,
          subjects: [auditSubject.user(userid)],
          // Completions and invalidations make the site's stage completion history (decision 243).
          ...(change.action === 'training.started' ? {} : { listedIn: 'stage-completions' as const }),
          details: {
            doctype: doc.doctype,
            docid: doc.docid,
            course_assignment_stage_completionid: record.course_assignment_stage_completionid,
            revisionid: record.course_stage_doc_revisionid,
            init_date: record.init_date,
            end_date: record.end_date,
            manager_override_userid: record.manager_override_userid,
            work_log_entryid: record.work_log_entryid,
            invalidated_at: record.invalidated_at,
          },
        },
        [
          completionWrite(record, current?.version ?? null),
          ...completionMarkWrites(record, change),
          ...outboxPuts(change.events?.(record) ?? []),
        ],
      );
      return record;
    },
    {
      attempts: 8,
      raceLabels: labelsIn('completion', ...AUDIT_CHAIN_LABELS),
      message: `The completion of ${doc.doctype} ${doc.docid} for user ${userid} kept changing; try again`,
    },
  );
}

async function newCompletion(
  userid: number,
  doc: DocRef,
  previous: CompletionRecord | undefined,
  fields: Partial<CompletionRecord> & { init_date: number },
): Promise<CompletionRecord> {
  const document = await stageDocument(doc);
  return {
    course_assignment_stage_completionid: await nextId('stage_completion'),
    userid,
    doctype: doc.doctype,
    docid: doc.docid,
    course_stage_doc_revisionid: document?.revisionid ?? null,
    manager_override_userid: null,
    end_date: null,
    work_log_entryid: null,
    release_major: null,
    release_minor: null,
    invalidated_at: null,
    invalidated_by: null,
    ...fields,
    version: (previous?.version ?? 0) + 1,
  };
}

export interface StartInput {
  userid: number;
  doctype: StageDoctype;
  docid: number;
  at?: number;
  actor_userid?: number;
  impersonator_userid?: number | null;
}

/** Starts an attempt unless one is in progress; returns the stages it concerns (empty: not assigned). */
export async function startDocument(
  input: StartInput,
): Promise<{ stages: StageOnDocument[]; completion: CompletionRecord | undefined }> {
  const doc = { doctype: input.doctype, docid: input.docid };
  const stages = await activeStagesOn(input.userid, doc);
  if (stages.length === 0) return { stages, completion: undefined };
  const at = input.at ?? nowSeconds();
  const completion = await changeCompletion(
    input.userid,
    doc,
    async (current) =>
      isInProgress(current) ? undefined : newCompletion(input.userid, doc, current, { init_date: at }),
    {
      action: 'training.started',
      actor_userid: input.actor_userid ?? input.userid,
      impersonator_userid: input.impersonator_userid,
    },
  );
  await refreshStages(stages);
  return { stages, completion };
}

export interface CompleteInput extends StartInput {
  work_log_entryid?: number | null;
  manager_override_userid?: number | null;
  revisionid?: number | null;
  /** When an attempt has to be created, it started then (default: `at`). */
  init_date?: number;
}

/**
 * Finishes the attempt in progress, or records one that starts and ends now. The document's
 * latest release at this moment is kept with it (a later release may outdate it).
 */
export async function completeDocument(
  input: CompleteInput,
): Promise<{ stages: StageOnDocument[]; completion: CompletionRecord | undefined }> {
  const doc = { doctype: input.doctype, docid: input.docid };
  const stages = await activeStagesOn(input.userid, doc);
  if (stages.length === 0) return { stages, completion: undefined };
  const at = input.at ?? nowSeconds();
  const completion = await changeCompletion(
    input.userid,
    doc,
    async (current) => {
      const release = (await latestReleases([doc])).get(`${doc.doctype}#${doc.docid}`) ?? null;
      const ending = {
        end_date: at,
        manager_override_userid: input.manager_override_userid ?? null,
        release_major: release?.major ?? null,
        release_minor: release?.minor ?? null,
      };
      if (isInProgress(current) && current.init_date <= at) {
        return {
          ...current,
          ...ending,
          work_log_entryid: input.work_log_entryid ?? current.work_log_entryid,
          course_stage_doc_revisionid: input.revisionid ?? current.course_stage_doc_revisionid,
          version: current.version + 1,
        };
      }
      const created = await newCompletion(input.userid, doc, current, {
        init_date: Math.min(input.init_date ?? at, at),
        ...ending,
        work_log_entryid: input.work_log_entryid ?? null,
      });
      return input.revisionid ? { ...created, course_stage_doc_revisionid: input.revisionid } : created;
    },
    {
      action: 'training.completed',
      actor_userid: input.actor_userid ?? input.manager_override_userid ?? input.userid,
      impersonator_userid: input.impersonator_userid,
      events: (record) => stageEvents('course_stage.completed', stages, record),
    },
  );
  await refreshStages(stages);
  // Trained on this release: pending acknowledgements of it (or older ones) are moot.
  await settleAcknowledgements(completion);
  return { stages, completion };
}

/** A manager invalidates the trainee's last completion; undefined when there is none to invalidate. */
export async function invalidateDocument(input: {
  userid: number;
  doctype: StageDoctype;
  docid: number;
  by: number;
  impersonator_userid?: number | null;
}) {
  const doc = { doctype: input.doctype, docid: input.docid };
  const at = nowSeconds();
  let invalidated = false;
  const stages = await activeStagesOn(input.userid, doc);
  const completion = await changeCompletion(
    input.userid,
    doc,
    async (current) => {
      if (!current || current.invalidated_at !== null) return undefined;
      invalidated = true;
      return { ...current, invalidated_at: at, invalidated_by: input.by, version: current.version + 1 };
    },
    {
      action: 'training.invalidated',
      actor_userid: input.by,
      impersonator_userid: input.impersonator_userid,
      events: (record) => stageEvents('course_stage.invalidated', stages, record),
    },
  );
  await refreshStages(stages);
  return { completion, invalidated, stages };
}

// ---------------------------------------------------------------------------------------------
// The contract

export async function recordDocumentStarted(input: {
  userid: number;
  doctype: 'guide' | 'wiki';
  docid: number;
  at?: number;
}): Promise<void> {
  await startDocument(input);
}

export async function recordDocumentCompleted(input: {
  userid: number;
  doctype: 'guide' | 'wiki';
  docid: number;
  work_log_entryid?: number | null;
  manager_override_userid?: number | null;
  revisionid?: number | null;
  at?: number;
}): Promise<void> {
  await completeDocument(input);
}

export async function refreshDocumentProgress(userid: number, doctype: 'guide' | 'wiki', docid: number): Promise<void> {
  await refreshProgressOn(userid, { doctype, docid });
}

/** refreshDocumentProgress for any stage document (signoffs on module stages too). */
export async function refreshProgressOn(userid: number, doc: DocRef): Promise<void> {
  const stages = await activeStagesOn(userid, doc);
  if (stages.length > 0) await refreshStages(stages);
}
