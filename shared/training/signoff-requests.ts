/**
 * A trainee's signoff request (docs/courses.md "Signoffs"): the stage it asks for, who signs
 * it, and its create. The create lives here, not in the signoffs group, because the route and
 * the offline journal (`POST /user/sync`, decision 225) make a request with the same code,
 * exactly once by its `client_guid` (decision 224). Answering a request stays in the group.
 */
import { ConflictError, ForbiddenError, NotFoundError } from '../domain/errors.ts';
import type { SignedInAuth } from '../domain/caller.ts';
import type { Created } from '../domain/client-guid.ts';
import { appendAudit, auditSubject } from '../db/audit.ts';
import { nextId } from '../db/counters.ts';
import { nowSeconds } from '../clock.ts';
import { TransactionConditionFailed, type LabelledWrite } from '../db/transactions.ts';
import { createOnce, lostGuidRace } from '../db/client-guid.ts';
import { getAssessment, type CourseStageRecord } from '../db/entities/course.ts';
import { listTraineeRows } from '../db/entities/training-row.ts';
import {
  getSignoffRequest,
  getTraineeSignoff,
  signoffRequestWrite,
  traineeSignoffWrite,
  type SignoffRequestRecord,
} from '../db/entities/signoff.ts';
import { requireCourse } from './course-pages.ts';
import { stageDocument } from './documents.ts';
import { refreshProgressOn } from './progress.ts';

export interface SignoffRequestInput {
  stage_assessmentid: number;
  comments?: string;
  /** The device's own id of the request, unique per user (decision 224). */
  client_guid?: string;
}

export async function requireAssessmentStage(
  stage_assessmentid: number,
): Promise<{ teamid: number; wikiid: number; stage: CourseStageRecord }> {
  const assessment = await getAssessment(stage_assessmentid);
  if (!assessment) throw new NotFoundError(`No stage assessment with stage_assessmentid ${stage_assessmentid}`);
  const { course } = await requireCourse(assessment.wikiid);
  const stage = course.stages.find((candidate) => candidate.stage_assessmentid === stage_assessmentid);
  if (!stage || stage.assessment_teamid === null)
    throw new NotFoundError(`No stage assessment with stage_assessmentid ${stage_assessmentid}`);
  return { teamid: stage.assessment_teamid, wikiid: course.wikiid, stage };
}

/** Audit chains a signoff event joins: the trainee's, the request's and the document's (guides, wikis). */
export function signoffSubjects(request: SignoffRequestRecord): string[] {
  const document =
    request.doctype === 'external_training_module' ? [] : [auditSubject.document(request.doctype, request.docid)];
  return [auditSubject.user(request.userid), auditSubject.signoff(request.signoff_requestid), ...document];
}

/** What every audit record of a signoff event says about the request. */
export function signoffAuditDetails(next: SignoffRequestRecord, currentRevisionid: number | null) {
  return {
    signoff_requestid: next.signoff_requestid,
    stage_assessmentid: next.stage_assessmentid,
    wikiid: next.wikiid,
    course_stageid: next.course_stageid,
    doctype: next.doctype,
    docid: next.docid,
    requested_revisionid: next.doc_revisionid,
    current_revisionid: currentRevisionid,
    state: next.state,
    response: next.response,
  };
}

/**
 * A trainee asks for a signoff. With a `client_guid` the trainee already used: that request (not
 * created) for the same body, 409 with it for another (decision 224). `present` shapes the answer.
 */
export async function requestSignoff<V>(
  auth: SignedInAuth,
  input: SignoffRequestInput,
  present: (request: SignoffRequestRecord) => Promise<V>,
): Promise<Created<V>> {
  const { client_guid, ...request } = input;
  return createOnce({
    kind: 'signoff_request',
    userid: auth.user.userid,
    guid: client_guid,
    request,
    existing: async (ref) => {
      const current = await getSignoffRequest(Number(ref));
      if (!current) throw new NotFoundError(`No signoff request with signoff_requestid ${ref}`);
      return present(current);
    },
    make: async (claim) => present(await insertSignoffRequest(auth, input, present, claim)),
  });
}

async function insertSignoffRequest<V>(
  auth: SignedInAuth,
  input: SignoffRequestInput,
  present: (request: SignoffRequestRecord) => Promise<V>,
  claim?: (signoff_requestid: number) => LabelledWrite,
): Promise<SignoffRequestRecord> {
  const caller = auth.user;
  const { teamid, wikiid, stage } = await requireAssessmentStage(input.stage_assessmentid);
  if ((await listTraineeRows(caller.userid, wikiid)).length === 0)
    throw new ForbiddenError('Only trainees assigned to the course request its signoffs');
  const document = await stageDocument(stage);
  const request: SignoffRequestRecord = {
    signoff_requestid: await nextId('signoff_request'),
    stage_assessmentid: input.stage_assessmentid,
    wikiid,
    course_stageid: stage.course_stageid,
    doctype: stage.doctype,
    docid: stage.docid,
    doc_revisionid: document?.revisionid ?? null,
    userid: caller.userid,
    teamid,
    state: 'requested',
    comments: input.comments ?? '',
    requested_date: nowSeconds(),
    response: null,
    acknowledged_date: null,
    cancelled_date: null,
    cancelled_by: null,
    version: 1,
  };
  try {
    await appendAudit(
      {
        action: 'signoff.requested',
        actor_userid: caller.userid,
        impersonator_userid: auth.impersonatorUserid ?? null,
        subjects: signoffSubjects(request),
        details: signoffAuditDetails(request, document?.revisionid ?? null),
      },
      [
        signoffRequestWrite(request, null),
        traineeSignoffWrite(request),
        ...(claim ? [claim(request.signoff_requestid)] : []),
      ],
    );
  } catch (error) {
    if (!(error instanceof TransactionConditionFailed) || lostGuidRace(error)) throw error;
    if (!error.failedLabels.includes('trainee-signoff'))
      throw new ConflictError('The signoff request changed meanwhile; try again');
    const open = await getTraineeSignoff(caller.userid, input.stage_assessmentid);
    const current = open ? await getSignoffRequest(open.signoff_requestid) : undefined;
    throw new ConflictError(
      'A signoff request for this stage is already open; the body is that request',
      current ? await present(current) : undefined,
    );
  }
  await refreshProgressOn(request.userid, request);
  return request;
}
