/**
 * Course stage signoffs (docs/courses.md "Signoffs"). A trainee requests a signoff for a stage
 * assessed by a team; the team's members see it pending and one of them responds (approve or
 * reject); the trainee acknowledges the response, and only then does an approved signoff
 * complete the stage. Cancelling an open request lets the trainee request again. Over the
 * shoulder, the person who is not signed in confirms with their password
 * (initializeViaPassword; one who signs through an identity provider signs in at GET
 * /sso/sign_for instead, decision 238) and the signed-in one finalizes the response with the
 * single-use token it returns. Every step is appended to the audit trail (trainee and request
 * chains) in the same transaction as the change: who, when, what, on which document revision.
 */
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { sha256Hex } from '../../shared/domain/secrets.ts';
import { userSummary } from '../../shared/views/user-views.ts';
import { actorFields, auditActor, isAdmin, type Caller, type SignedInAuth } from '../../shared/domain/caller.ts';
import { verifyCredentials } from '../../shared/accounts/credential-check.ts';
import {
  proveSigner,
  refuseImpersonatedSignature,
  signForUrl,
  signingProviderOf,
  stepUpRequired,
  withSignForHint,
} from '../../shared/accounts/e-signature.ts';
import { BY_PASSWORD } from '../../shared/domain/signature-auth.ts';
import { appendAudit } from '../../shared/db/audit.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { TransactionConditionFailed, type LabelledWrite } from '../../shared/db/transactions.ts';
import { clientGuidHolder, lostGuidRace } from '../../shared/db/client-guid.ts';
import { getSignIntent, signIntentConfirmWrite } from '../../shared/db/entities/sign-intent.ts';
import { getCourses } from '../../shared/db/entities/course.ts';
import { listMembers } from '../../shared/db/entities/team.ts';
import { getUser, getUsers } from '../../shared/db/entities/user.ts';
import {
  consumeFinalizeToken,
  getSignoffRequest,
  getTraineeSignoff,
  listPendingForTeam,
  listUnacknowledged,
  OPEN_STATES,
  signoffRequestWrite,
  traineeSignoffWrite,
  type SignoffRequestRecord,
  type SignoffResponse,
} from '../../shared/db/entities/signoff.ts';
import { requireCourse } from '../../shared/training/course-pages.ts';
import { assertSignoffSigner, issueFinalizeToken } from '../../shared/training/over-the-shoulder.ts';
import {
  requestSignoff as createSignoffRequest,
  requireAssessmentStage,
  signoffAuditDetails,
  signoffSubjects as subjectsOf,
} from '../../shared/training/signoff-requests.ts';
import { siteUrl } from '../../shared/config.ts';
import { stageDocument, stageDocuments } from '../../shared/training/documents.ts';
import { managesUser } from '../../shared/training/managers.ts';
import { completeDocument, refreshProgressOn } from '../../shared/training/progress.ts';
import { stageOutcomes } from '../../shared/training/stage-facts.ts';
import type { Page } from '../../shared/db/paging.ts';
import { signoffRequestView, type SignoffRequestView } from '../../shared/views/signoff-views.ts';
import type {
  FinalizeInput,
  InitializeViaPasswordInput,
  SignoffRequestInput,
  SignoffResponseInput,
} from './signoffs.schemas.ts';

export { FINALIZE_TOKEN_SECONDS } from '../../shared/training/over-the-shoulder.ts';

/** Stage outcomes that mean "the document itself is not done": acknowledging an approval completes it. */
const DOCUMENT_NOT_DONE = new Set([
  'not_started',
  'doc_in_progress',
  'newer_release',
  'manager_override',
  'recurrence_expired',
]);

async function views(requests: SignoffRequestRecord[]): Promise<SignoffRequestView[]> {
  const users = new Map(
    (
      await getUsers([
        ...new Set(requests.flatMap((r) => [r.userid, ...(r.response ? [r.response.responder_userid] : [])])),
      ])
    ).map((u) => [u.userid, u]),
  );
  const courses = new Map((await getCourses([...new Set(requests.map((r) => r.wikiid))])).map((c) => [c.wikiid, c]));
  const documents = await stageDocuments(requests);
  return requests.map((request) =>
    signoffRequestView(request, {
      courseTitle: courses.get(request.wikiid)?.title ?? null,
      document: documents.get(`${request.doctype}#${request.docid}`),
      username: users.get(request.userid)?.username ?? null,
      responderUsername: request.response ? (users.get(request.response.responder_userid)?.username ?? null) : null,
    }),
  );
}

const view = async (request: SignoffRequestRecord) => (await views([request]))[0];

async function requireRequest(id: number): Promise<SignoffRequestRecord> {
  const request = await getSignoffRequest(id);
  if (!request) throw new NotFoundError(`No signoff request with signoff_requestid ${id}`);
  return request;
}

/**
 * Moves a request to `next` (on condition of the version read) with the trainee's state and
 * an audit record, all in one transaction. A concurrent move answers 409 with the request now.
 */
async function transition(
  auth: SignedInAuth,
  action: string,
  before: SignoffRequestRecord | null,
  next: SignoffRequestRecord,
  details: Record<string, unknown> = {},
  also: LabelledWrite[] = [],
): Promise<void> {
  const document = await stageDocument(next);
  try {
    await appendAudit(
      {
        action,
        actor_userid: auth.user.userid,
        impersonator_userid: auth.impersonatorUserid ?? null,
        subjects: subjectsOf(next),
        details: { ...signoffAuditDetails(next, document?.revisionid ?? null), ...details },
      },
      [signoffRequestWrite(next, before?.version ?? null), traineeSignoffWrite(next), ...also],
    );
  } catch (error) {
    if (!(error instanceof TransactionConditionFailed) || lostGuidRace(error)) throw error;
    if (error.failedLabels.includes('trainee-signoff') && before === null) {
      const open = await getTraineeSignoff(next.userid, next.stage_assessmentid);
      const current = open ? await getSignoffRequest(open.signoff_requestid) : undefined;
      throw new ConflictError(
        'A signoff request for this stage is already open; the body is that request',
        current ? await view(current) : undefined,
      );
    }
    const current = await getSignoffRequest(next.signoff_requestid);
    throw new ConflictError(
      'The signoff request changed meanwhile; the body is the request now',
      current ? await view(current) : undefined,
    );
  }
}

function conflictUnless(
  request: SignoffRequestRecord,
  states: SignoffRequestRecord['state'][],
  doing: string,
): Promise<never> | undefined {
  if (states.includes(request.state)) return undefined;
  return view(request).then((current) => {
    throw new ConflictError(`Cannot ${doing} a signoff request that is ${request.state}`, current);
  });
}

/** A trainee asks for a signoff (shared/training/signoff-requests.ts, also the journal's). */
export function requestSignoff(auth: SignedInAuth, input: SignoffRequestInput) {
  return createSignoffRequest(auth, input, view);
}

/** The user's request made under a client guid, as a list of at most one (decision 224). */
export async function requestsOfGuid(caller: Caller, userid: number, guid: string) {
  if (caller.userid !== userid && !(await managesUser(caller, userid)))
    throw new ForbiddenError("Only the user, their managers and Admins see the user's signoff requests");
  const holder = await clientGuidHolder('signoff_request', userid, guid);
  const request = holder ? await getSignoffRequest(Number(holder.ref)) : undefined;
  return request ? views([request]) : [];
}

/** Requests awaiting a response from the user: open requests of the teams they sign for, not their own. */
export async function pending(caller: Caller, userid: number, page: Page) {
  const user = await getUser(userid);
  if (!user) throw new NotFoundError(`No user with userid ${userid}`);
  if (caller.userid !== userid && !(await managesUser(caller, userid)))
    throw new ForbiddenError('Only the user, their managers and Admins see their pending signoffs');
  const found = (await Promise.all(user.teams.map(listPendingForTeam)))
    .flat()
    .filter((request) => request.userid !== userid);
  const unique = [...new Map(found.map((request) => [request.signoff_requestid, request])).values()].sort(
    (a, b) => a.signoff_requestid - b.signoff_requestid,
  );
  return views(unique.slice(page.offset, page.offset + page.limit));
}

/** The trainee's answered requests they have not acknowledged yet. */
export async function unacknowledged(caller: Caller, userid: number, page: Page) {
  if (!(await getUser(userid))) throw new NotFoundError(`No user with userid ${userid}`);
  if (caller.userid !== userid && !(await managesUser(caller, userid)))
    throw new ForbiddenError('Only the user, their managers and Admins see their signoff responses');
  return views(await listUnacknowledged(userid, page));
}

/** Who can sign for the assessment: the members of its team. */
export async function signers(stage_assessmentid: number, page: Page) {
  const { teamid } = await requireAssessmentStage(stage_assessmentid);
  const members = await listMembers(teamid, page);
  return (await getUsers(members.map((member) => member.userid))).map((user) => userSummary(user, siteUrl()));
}

/** A signer answers: members of the assessment's team, never the trainee themself. */
const assertSigner = assertSignoffSigner;

async function respondAs(
  auth: SignedInAuth,
  request: SignoffRequestRecord,
  response: Omit<SignoffResponse, 'response_date'>,
  extra: Record<string, unknown> = {},
  also: LabelledWrite[] = [],
) {
  await conflictUnless(request, ['requested'], 'answer');
  const next: SignoffRequestRecord = {
    ...request,
    state: 'responded',
    response: { ...response, response_date: nowSeconds() },
    version: request.version + 1,
  };
  await transition(auth, 'signoff.responded', request, next, extra, also);
  await refreshProgressOn(next.userid, next);
  return view(next);
}

export async function respond(auth: SignedInAuth, input: SignoffResponseInput) {
  const request = await requireRequest(input.signoff_requestid);
  await assertSigner(request, auth.user.userid);
  return respondAs(auth, request, {
    approved: input.approved ?? true,
    comments: input.comments ?? '',
    responder_userid: auth.user.userid,
    method: 'signer',
  });
}

/**
 * Makes the signature an offline intent stood for (decision 225): the signer, signed in, enters
 * their password now; the answer is the one the device recorded, and the audit record carries
 * the device's time beside the server's. The intent is confirmed in the same transaction.
 */
export async function confirmIntent(auth: SignedInAuth, guid: string, password: string | undefined, sourceIp: string) {
  refuseImpersonatedSignature(auth);
  const intent = await getSignIntent(auth.user.userid, guid);
  // An acknowledgement's intent (decision 252) is confirmed on its own route.
  if (intent?.signoff_requestid === undefined)
    throw new NotFoundError(`No intent to sign of yours with client_guid ${guid}`);
  if (intent.state !== 'pending') throw new ConflictError('This intent was confirmed already', intent);
  const request = await requireRequest(intent.signoff_requestid);
  await assertSigner(request, auth.user.userid);
  // After the checks that need no proof, so a refused confirmation does not spend a step-up.
  const { authenticated_by, spend } = await proveSigner(await getUser(auth.user.userid), { password, sourceIp });
  const now = nowSeconds();
  return respondAs(
    auth,
    request,
    {
      approved: intent.approved,
      comments: intent.comments,
      responder_userid: auth.user.userid,
      method: 'password',
      authenticated_by,
    },
    { intent_client_guid: guid, device_time: intent.device_time, intent_recorded_date: intent.recorded_date },
    [signIntentConfirmWrite(auth.user.userid, guid, now), ...spend],
  );
}

/**
 * The trainee acknowledges the response. An approval then completes the stage: when the
 * trainee's document itself is not done (not started, in progress, outdated, expired), the
 * acknowledgement records its completion, dated from the request.
 */
export async function acknowledge(auth: SignedInAuth, signoff_requestid: number) {
  const caller = auth.user;
  const request = await requireRequest(signoff_requestid);
  if (caller.userid !== request.userid && !isAdmin(caller))
    throw new ForbiddenError('Only the trainee acknowledges a signoff response');
  await conflictUnless(request, ['responded'], 'acknowledge');
  const at = nowSeconds();
  const next: SignoffRequestRecord = {
    ...request,
    state: 'acknowledged',
    acknowledged_date: at,
    version: request.version + 1,
  };
  await transition(auth, 'signoff.acknowledged', request, next);
  if (next.response?.approved) {
    const { course } = await requireCourse(request.wikiid);
    const stage = course.stages.find((candidate) => candidate.course_stageid === request.course_stageid);
    const outcome = stage ? (await stageOutcomes([request.userid], [stage])).get(request.userid)![0] : undefined;
    if (outcome && DOCUMENT_NOT_DONE.has(outcome.state.reason)) {
      await completeDocument({
        userid: request.userid,
        doctype: request.doctype,
        docid: request.docid,
        at,
        init_date: Math.min(request.requested_date, at),
        actor_userid: caller.userid,
        impersonator_userid: auth.impersonatorUserid,
      });
    }
  }
  await refreshProgressOn(next.userid, next);
  return view(next);
}

export async function cancel(auth: SignedInAuth, signoff_requestid: number): Promise<void> {
  const caller = auth.user;
  const request = await requireRequest(signoff_requestid);
  if (caller.userid !== request.userid && !isAdmin(caller))
    throw new ForbiddenError('Only the trainee cancels their signoff request');
  await conflictUnless(request, OPEN_STATES, 'cancel');
  const next: SignoffRequestRecord = {
    ...request,
    state: 'cancelled',
    cancelled_date: nowSeconds(),
    ...actorFields('cancelled_by', caller),
    version: request.version + 1,
  };
  await transition(auth, 'signoff.cancelled', request, next);
  await refreshProgressOn(next.userid, next);
}

/**
 * Over the shoulder: the signed-in caller and the person whose credentials are given must be
 * the trainee and a signer, in either order. Answers a single-use token (stored hashed, 5
 * minutes) that lets the caller finalize the response.
 */
export async function initializeViaPassword(
  auth: SignedInAuth,
  signoff_requestid: number,
  input: InitializeViaPasswordInput,
  sourceIp: string,
) {
  const request = await requireRequest(signoff_requestid);
  await conflictUnless(request, ['requested'], 'answer');
  const login = input.login ?? input.email;
  if (!login) throw ValidationError.field('login', 'missing_field', 'login (email or unique_username) is required');
  // Someone who signs through an identity provider signs in on this device instead (decision 238);
  // the password is checked first, so a wrong one says nothing about the account.
  const signFor = signForUrl('signoff_request', signoff_requestid);
  const person = await withSignForHint(signFor, () => verifyCredentials({ login, password: input.password, sourceIp }));
  const provider = await signingProviderOf(person);
  if (provider) throw stepUpRequired(provider, 'This person signs through their identity provider, here', signFor);
  return issueFinalizeToken(
    { userid: auth.user.userid, impersonatorUserid: auth.impersonatorUserid, actor: auditActor(auth.user) },
    request,
    person.userid,
    BY_PASSWORD,
  );
}

/** Records the response the token authorizes (once): the signer answers, method `password`. */
export async function finalize(auth: SignedInAuth, signoff_requestid: number, input: FinalizeInput) {
  const request = await requireRequest(signoff_requestid);
  const token = await consumeFinalizeToken(sha256Hex(input.token));
  if (
    !token ||
    token.expires <= nowSeconds() ||
    token.signoff_requestid !== signoff_requestid ||
    token.caller_userid !== auth.user.userid
  ) {
    throw new ForbiddenError('The finalize token is invalid, expired or already used; confirm the password again');
  }
  return respondAs(
    auth,
    request,
    {
      approved: input.approved ?? true,
      comments: input.comments ?? '',
      responder_userid: token.signer_userid,
      method: 'password',
      authenticated_by: token.authenticated_by ?? BY_PASSWORD,
    },
    { confirmed_by_password: true },
  );
}
