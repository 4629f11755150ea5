/**
 * `POST /user/sync` (issue 30 §3, decision 225; the client's contract is docs/offline.md): a
 * device's journal of work done offline, applied in order, each action exactly once, with a
 * result per action. Exactly once comes from the client guids (decision 224): every action names
 * what it makes or does with its own `client_guid`, so a journal sent again, whole or from any
 * point, finds what was already done and answers `already_applied`.
 * A conflict is reported, never dropped and never a failure of the whole journal.
 */
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import type { Caller, SignedInAuth } from '../../shared/domain/caller.ts';
import { type ClientGuidKind, requestFingerprint } from '../../shared/domain/client-guid.ts';
import { claimClientGuid, clientGuidHolder } from '../../shared/db/client-guid.ts';
import { transactWrite, TransactionConditionFailed } from '../../shared/db/transactions.ts';
import { log } from '../../shared/observability/logger.ts';
import { appendAudit, auditSubject } from '../../shared/db/audit.ts';
import { getSignIntent, signIntentPut } from '../../shared/db/entities/sign-intent.ts';
import { getSignoffRequest } from '../../shared/db/entities/signoff.ts';
import { nowSeconds } from '../../shared/clock.ts';
import type { EntryView } from '../../shared/views/work-log-views.ts';
import * as workLog from './work-log.service.ts';
import { qualificationConflict, shortOf } from './sync-qualification.ts';
import type { SyncAction, SyncActionType } from './sync.schemas.ts';
import { type Outcome, Skip, SyncConflict, type SyncResult, type SyncStatus } from './sync-outcome.ts';
import { commentCreate, quizSubmit, signoffRequest } from './sync-records.ts';
import { acknowledgementIntent } from './sync-ack-intent.ts';

/** Past this, the rest of the journal is answered `not_applied` (API Gateway stops at 30 s). */
export const SYNC_TIME_BUDGET_MS = 25_000;

const OPERATIONS: Partial<Record<SyncActionType, workLog.EntryOperation>> = {
  'work_log.pause': 'pause',
  'work_log.resume': 'resume',
  'work_log.finish': 'finish',
  'work_log.cancel': 'cancel',
};

/** Applies a journal in order; `now()` is the server clock in ms (a parameter for the tests). */
export async function sync(
  auth: SignedInAuth,
  actions: SyncAction[],
  budgetMs = SYNC_TIME_BUDGET_MS,
): Promise<{ results: SyncResult[] }> {
  const started = Date.now();
  // Entries made by starts of this journal (client guid -> entryid), and starts that failed.
  const entries = new Map<string, number>();
  const failed = new Set<string>();
  const results: SyncResult[] = [];
  for (const action of actions) {
    const base = { client_guid: action.client_guid, type: action.type, device_time: action.device_time };
    if (Date.now() - started > budgetMs) {
      results.push({
        ...base,
        status: 'not_applied',
        http_status: 503,
        conflict: { reason: 'time_budget', message: 'Not reached within the time of one request: send it again' },
        server_time: Math.floor(Date.now() / 1000),
      });
      continue;
    }
    let result: Outcome;
    try {
      result = await apply(auth, action, entries);
    } catch (error) {
      result = failure(action, error);
      if (action.type === 'work_log.start') failed.add(action.client_guid);
    }
    results.push({ ...base, ...result, server_time: Math.floor(Date.now() / 1000) });
  }
  return { results: results.map((result) => dependsOnFailed(result, actions, failed)) };
}

/** An action on an entry whose start failed in this journal says so, rather than "unknown entry". */
function dependsOnFailed(result: SyncResult, actions: SyncAction[], failed: Set<string>): SyncResult {
  if (result.conflict?.reason !== 'unknown_entry') return result;
  const action = actions.find((each) => each.client_guid === result.client_guid);
  if (typeof action?.entry !== 'string' || !failed.has(action.entry)) return result;
  return {
    ...result,
    status: 'skipped',
    conflict: { reason: 'depends_on_failed', message: `The start ${action.entry} of this entry was not applied` },
  };
}

async function apply(auth: SignedInAuth, action: SyncAction, entries: Map<string, number>): Promise<Outcome> {
  const caller = auth.user;
  if (action.type === 'work_log.start') return start(caller, action, entries);
  if (action.type === 'signoff.sign_intent') return signIntent(auth.user, action);
  if (action.type === 'acknowledgement.sign_intent') return acknowledgementIntent(auth.user, action);
  if (action.type === 'comment.create') return commentCreate(auth.user, action);
  if (action.type === 'quiz.submit') return quizSubmit(auth.user, action);
  if (action.type === 'signoff.request') return signoffRequest(auth, action);
  const entryid = await resolveEntry(caller, action, entries);
  if (action.type === 'work_log.step_data') return stepData(caller, action, entryid);
  return operation(caller, action, entryid, OPERATIONS[action.type]!);
}

async function start(caller: Caller, action: SyncAction, entries: Map<string, number>) {
  const data = action.data ?? {};
  const { created, record } = await workLog.create(caller, {
    guideid: typeof data.guideid === 'number' ? data.guideid : undefined,
    workorderid: typeof data.workorderid === 'string' ? data.workorderid : undefined,
    client_guid: action.client_guid,
  });
  entries.set(action.client_guid, record.entryid);
  const status: SyncStatus = created ? 'applied' : 'already_applied';
  // A flagged start (gate `warn`) says so before a new release: the operator's shortfall matters more.
  const flagged = await qualificationConflict(record.entryid, newRelease(action, record).conflict);
  return {
    status,
    http_status: created ? 201 : 200,
    entryid: record.entryid,
    ...(flagged ? { conflict: flagged } : newRelease(action, record)),
  };
}

/** Done, but on another revision of the guide than the device had: reported with the result. */
function newRelease(action: SyncAction, record: EntryView) {
  if (action.revisionid === undefined || action.revisionid === record.guide_revisionid) return {};
  return {
    conflict: {
      reason: 'new_release' as const,
      message:
        `The guide changed while the device was offline: the work was done on revision ${action.revisionid}, ` +
        `the entry records revision ${record.guide_revisionid}`,
      current: { guide_revisionid: record.guide_revisionid },
    },
  };
}

async function resolveEntry(caller: Caller, action: SyncAction, entries: Map<string, number>): Promise<number> {
  if (typeof action.entry === 'number') return action.entry;
  if (action.entry === undefined)
    throw new Skip('invalid', '`entry` is required: an entryid or the client_guid of its start');
  const known =
    entries.get(action.entry) ?? Number((await clientGuidHolder('work_log', caller.userid, action.entry))?.ref);
  if (!known) throw new Skip('unknown_entry', `No entry of yours was started with client_guid ${action.entry}`);
  return known;
}

async function stepData(caller: Caller, action: SyncAction, entryid: number) {
  const data = action.data ?? {};
  const applied = await workLog.saveStepData(caller, entryid, {
    fields: data.fields as Record<string, unknown> | undefined,
    stepid: typeof data.stepid === 'number' ? data.stepid : undefined,
    client_guid: action.client_guid,
  });
  return { status: applied ? ('applied' as const) : ('already_applied' as const), http_status: 200, entryid };
}

/**
 * A state change of the entry, once: its guid is claimed after it lands (the change itself has
 * its own condition on the entry's state, so a second one is refused anyway; the claim tells a
 * resend `already_applied` instead of a conflict).
 */
async function operation(caller: Caller, action: SyncAction, entryid: number, op: workLog.EntryOperation) {
  const kind: ClientGuidKind = 'sync';
  const fingerprint = requestFingerprint({ type: action.type, entryid });
  const holder = await clientGuidHolder(kind, caller.userid, action.client_guid);
  if (holder) {
    if (holder.fingerprint !== fingerprint)
      throw new Skip('guid_reused', 'This client_guid already named another action of yours');
    return { status: 'already_applied' as const, http_status: 200, entryid };
  }
  try {
    await workLog.transition(caller, entryid, op);
  } catch (error) {
    // The same journal from another connection may have made this change a moment ago: its
    // claim follows the change, so look again before calling it a conflict.
    if (!(error instanceof ConflictError)) throw error;
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = await clientGuidHolder(kind, caller.userid, action.client_guid);
    if (now?.fingerprint === fingerprint) return { status: 'already_applied' as const, http_status: 200, entryid };
    throw error;
  }
  try {
    await transactWrite([
      claimClientGuid(kind, caller.userid, action.client_guid, { ref: String(entryid), fingerprint }),
    ]);
  } catch (error) {
    // Another send of the same journal claimed it at the same moment: the change landed once.
    if (!(error instanceof TransactionConditionFailed)) throw error;
  }
  return { status: 'applied' as const, http_status: 200, entryid };
}

/**
 * Records the intent to answer a signoff request, once, with the device's time, in the audit
 * chains of the signer and the request. No signature: that is made online (decision 225).
 */
async function signIntent(caller: Caller, action: SyncAction) {
  const data = action.data ?? {};
  const signoff_requestid = data.signoff_requestid;
  if (typeof signoff_requestid !== 'number' || !Number.isInteger(signoff_requestid) || signoff_requestid < 1)
    throw ValidationError.field('data.signoff_requestid', 'missing_field', 'signoff_requestid is required');
  const intent = {
    client_guid: action.client_guid,
    userid: caller.userid,
    signoff_requestid,
    approved: data.approved !== false,
    comments: typeof data.comments === 'string' ? data.comments : '',
    device_time: action.device_time,
    recorded_date: nowSeconds(),
    state: 'pending' as const,
    confirmed_date: null,
  };
  const fingerprint = requestFingerprint({ ...intent, recorded_date: undefined, state: undefined });
  const existing = await getSignIntent(caller.userid, action.client_guid);
  if (existing) {
    if (existing.fingerprint !== fingerprint) throw new Skip('guid_reused', 'This client_guid named another intent');
    return {
      status: existing.state === 'pending' ? ('pending' as const) : ('already_applied' as const),
      http_status: 200,
    };
  }
  const request = await getSignoffRequest(signoff_requestid);
  if (!request) throw new NotFoundError(`No signoff request with signoff_requestid ${signoff_requestid}`);
  if (request.state !== 'requested')
    throw new ConflictError(`The signoff request is ${request.state}: it no longer awaits an answer`);
  try {
    await appendAudit(
      {
        action: 'signoff.intent_recorded',
        actor_userid: caller.userid,
        subjects: [auditSubject.user(caller.userid), auditSubject.signoff(signoff_requestid)],
        details: {
          client_guid: action.client_guid,
          signoff_requestid,
          approved: intent.approved,
          device_time: action.device_time,
        },
      },
      [signIntentPut({ ...intent, fingerprint })],
    );
  } catch (error) {
    // The same intent sent twice at once: recorded by the other send.
    if (!(error instanceof TransactionConditionFailed && error.failedLabels.includes('sign-intent'))) throw error;
  }
  return { status: 'pending' as const, http_status: 202 };
}

function failure(action: SyncAction, error: unknown): Outcome {
  const entry = typeof action.entry === 'number' ? { entryid: action.entry } : {};
  if (error instanceof SyncConflict)
    return {
      status: 'conflict',
      http_status: error.httpStatus,
      ...entry,
      conflict: { reason: error.reason, message: error.message, current: error.current },
    };
  if (error instanceof Skip)
    return {
      status: 'skipped',
      http_status: 422,
      ...entry,
      conflict: { reason: error.reason, message: error.message },
    };
  const short = error instanceof ForbiddenError ? shortOf(error) : undefined;
  if (short) return { status: 'conflict', http_status: 403, ...entry, conflict: { reason: 'qualification', ...short } };
  if (error instanceof ForbiddenError)
    return {
      status: 'conflict',
      http_status: 403,
      ...entry,
      conflict: { reason: 'access_lost', message: error.message },
    };
  if (error instanceof NotFoundError)
    return {
      status: 'conflict',
      http_status: 404,
      ...entry,
      conflict: { reason: 'not_found', message: error.message },
    };
  if (error instanceof ConflictError) {
    const reused = error.message.includes('client_guid');
    return {
      status: 'conflict',
      http_status: 409,
      ...entry,
      conflict: { reason: reused ? 'guid_reused' : 'state_changed', message: error.message, current: error.current },
    };
  }
  if (error instanceof ValidationError)
    return { status: 'rejected', http_status: 422, ...entry, conflict: { reason: 'invalid', message: error.message } };
  // One action's unexpected failure does not lose the rest of the journal; it is logged.
  log().error('sync action failed', { client_guid: action.client_guid, type: action.type, error: error as Error });
  return {
    status: 'rejected',
    http_status: 500,
    ...entry,
    conflict: { reason: 'server_error', message: 'The server could not apply this action; send it again later' },
  };
}
