/**
 * The gate on work in the work log (docs/competency.md): starting an entry and saving step data
 * check the operator's level for the guide's current major release against the minimum.
 * `block`: 403 naming each skill, the level required and the level held. `warn`: the entry is
 * created flagged, and a qualified supervisor (level 4 in every skill of the guide, or an Admin;
 * not the operator) signs an override on the entry. The entry records the levels as they were at
 * the start (WorkLogQualification, written in the entry's transaction).
 */
import { nowSeconds } from '../../shared/clock.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../../shared/domain/errors.ts';
import { isAdmin, type AuthContext, type Caller } from '../../shared/domain/caller.ts';
import { shortfallMessage } from '../../shared/domain/competency.ts';
import { proveSigner, refuseImpersonatedSignature } from '../../shared/accounts/e-signature.ts';
import { AUDIT_CHAIN_LABELS, appendAudit, auditSubject } from '../../shared/db/audit.ts';
import { labelsIn, LostRace, retryOnLostRace } from '../../shared/db/retry.ts';
import { TransactionConditionFailed, transactWrite, type LabelledWrite } from '../../shared/db/transactions.ts';
import { getUser } from '../../shared/db/entities/user.ts';
import { entryCreateWrites, readEntry, type WorkLogEntryRecord } from '../../shared/db/entities/work-log.ts';
import {
  getWorkLogQualification,
  MAX_PREVIOUS_OPERATORS,
  qualificationHandoverPut,
  qualificationPut,
  type WorkLogQualificationRecord,
} from '../../shared/db/entities/work-log-qualification.ts';
import { gateBlocks, gateFor, type GateResult } from '../../shared/training/qualification-gate.ts';
import { assertTrainerOnGuide, isTrainerFor } from '../../shared/training/trainer-authority.ts';
import { workLogQualificationView } from '../../shared/views/competency-views.ts';

/** The 403 of a blocked operator: the reason and, per skill short, the level required and held. */
function blocked(gate: GateResult): ForbiddenError {
  return new ForbiddenError(shortfallMessage(gate.shortfalls), {
    skills: gate.shortfalls.map((check) => ({
      skillid: check.skillid,
      name: check.name,
      level_required: check.required,
      level_held: check.held,
      standing: check.standing,
    })),
  });
}

/** Before an entry starts: the gate's verdict (403 when it blocks). */
export async function gateOnStart(guideid: number, userid: number): Promise<GateResult> {
  const gate = await gateFor(guideid, userid, nowSeconds());
  if (gate.outcome === 'block') throw blocked(gate);
  return gate;
}

/** Before step data is saved: 403 when the guide is gated `block` and the operator falls short now. */
export async function assertNotBlocked(guideid: number, userid: number): Promise<void> {
  const gate = await gateBlocks(guideid, userid, nowSeconds());
  if (gate) throw blocked(gate);
}

/** What the gate found for an operator of the entry, as the entry records it. */
function gateRecord(
  entry: WorkLogEntryRecord,
  operatorid: number,
  gate: GateResult,
  date: number,
): WorkLogQualificationRecord {
  return {
    entryid: entry.entryid,
    guideid: entry.guideid,
    userid: operatorid,
    gate_mode: gate.mode,
    min_level: gate.min_level,
    outcome: gate.outcome === 'warn' ? 'warn' : 'allow',
    flagged: gate.outcome === 'warn',
    skills: gate.checks.map((check) => ({
      skillid: check.skillid,
      name: check.name,
      required: check.required,
      held: check.held,
      standing: check.standing,
      level: check.level,
      expires_at: check.expires_at,
      source: check.source,
    })),
    date,
    override: null,
  };
}

/**
 * Writes an entry's change of operator (assume by someone else) with the gate's record for the
 * new operator, in one transaction (decision 305): the gate is checked for them now (a `block`
 * was refused before), the record becomes theirs — flagged under `warn` when they fall short,
 * until a qualified supervisor overrides it again — and the earlier operator's record moves to
 * `previous`. A flagged hand-over joins the new operator's and the guide's audit chains.
 * A guide in no skill and not gated keeps no record, as at the start.
 */
export async function commitHandover(
  entry: WorkLogEntryRecord,
  next: WorkLogEntryRecord,
  changeWrites: LabelledWrite[],
  now: number,
): Promise<void> {
  const [gate, before] = await Promise.all([
    gateFor(entry.guideid, next.operator_userid, now),
    getWorkLogQualification(entry.entryid),
  ]);
  if (!before && gate.checks.length === 0 && gate.mode === 'off') {
    await transactWrite(changeWrites);
    return;
  }
  const { previous = [], ...earlier } = before ?? {};
  const record: WorkLogQualificationRecord = {
    ...gateRecord(next, next.operator_userid, gate, now),
    ...(before ? { previous: [...previous, earlier as (typeof previous)[number]].slice(-MAX_PREVIOUS_OPERATORS) } : {}),
  };
  const writes = [...changeWrites, qualificationHandoverPut(record, before)];
  try {
    if (!record.flagged) await transactWrite(writes);
    else
      await appendAudit(
        {
          action: 'work_log.qualification_flagged',
          actor_userid: next.operator_userid,
          subjects: [auditSubject.user(next.operator_userid), auditSubject.document('guide', entry.guideid)],
          details: {
            entryid: entry.entryid,
            skills: record.skills,
            min_level: record.min_level,
            handed_over_from: entry.operator_userid,
          },
        },
        writes,
      );
  } catch (error) {
    // The record changed since it was read (an override came first): read again.
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('qualification'))
      throw new LostRace();
    throw error;
  }
}

/**
 * Writes a new entry with what the gate found (when the guide belongs to a skill or is gated),
 * in one transaction; a flagged entry's record joins the operator's audit chain in it.
 */
export async function insertGatedEntry(
  entry: WorkLogEntryRecord,
  gate: GateResult,
  also: LabelledWrite[] = [],
): Promise<void> {
  if (gate.checks.length === 0 && gate.mode === 'off') {
    await transactWrite([...entryCreateWrites(entry), ...also]);
    return;
  }
  const record = gateRecord(entry, entry.operator_userid, gate, entry.starttime);
  const writes = [...entryCreateWrites(entry), ...also, qualificationPut(record, false)];
  if (!record.flagged) {
    await transactWrite(writes);
    return;
  }
  await appendAudit(
    {
      action: 'work_log.qualification_flagged',
      actor_userid: entry.operator_userid,
      subjects: [auditSubject.user(entry.operator_userid), auditSubject.document('guide', entry.guideid)],
      details: { entryid: entry.entryid, skills: record.skills, min_level: record.min_level },
    },
    writes,
  );
}

async function requireQualification(entryid: number) {
  const stored = await readEntry(entryid, { consistent: true });
  if (!stored) throw new NotFoundError(`No work log entry with entryid ${entryid}`);
  const record = await getWorkLogQualification(entryid);
  return { entry: stored.entry, record };
}

export async function qualificationOf(caller: Caller, entryid: number) {
  const { entry, record } = await requireQualification(entryid);
  const involved = caller.userid === entry.userid || caller.userid === entry.operator_userid;
  if (!involved && !isAdmin(caller) && !(await isTrainerFor(entry.guideid, caller.userid, nowSeconds())))
    throw new ForbiddenError(
      "Only the entry's operators, its guide's trainers and Admins see its qualification record",
    );
  if (!record)
    throw new NotFoundError(`Work log entry ${entryid} recorded no qualification (its guide is in no skill)`);
  return workLogQualificationView(record);
}

/**
 * A qualified supervisor's signed override of a flagged entry: their password, on condition no
 * override was given yet, with the audit record (operator's, supervisor's and guide's chains).
 */
export async function overrideQualification(
  caller: Caller,
  auth: AuthContext,
  entryid: number,
  input: { password?: string; comment?: string },
  sourceIp: string,
) {
  const { entry, record } = await requireQualification(entryid);
  if (caller.userid === entry.operator_userid || caller.userid === entry.userid)
    throw new ForbiddenError('The operator cannot override their own entry; a qualified supervisor signs it');
  await assertTrainerOnGuide(caller, 'override', entry.guideid, nowSeconds());
  if (!record?.flagged)
    throw new ConflictError(`Work log entry ${entryid} is not flagged; there is nothing to override`);
  if (record.override)
    throw new ConflictError(`Work log entry ${entryid} was already overridden`, workLogQualificationView(record));
  refuseImpersonatedSignature(auth);
  const { authenticated_by, spend } = await proveSigner(await getUser(caller.userid), {
    password: input.password,
    sourceIp,
  });
  const signed: WorkLogQualificationRecord = {
    ...record,
    override: {
      userid: caller.userid,
      date: nowSeconds(),
      meaning: 'override',
      method: 'password',
      comment: input.comment?.trim() ?? '',
      authenticated_by,
    },
  };
  try {
    await retryOnLostRace(
      () =>
        appendAudit(
          {
            action: 'work_log.qualification_overridden',
            actor_userid: caller.userid,
            subjects: [
              auditSubject.user(entry.operator_userid),
              auditSubject.user(caller.userid),
              auditSubject.document('guide', entry.guideid),
            ],
            details: { entryid, comment: signed.override!.comment, skills: record.skills, authenticated_by },
          },
          [qualificationPut(signed, true), ...spend],
        ),
      { attempts: 4, raceLabels: labelsIn(...AUDIT_CHAIN_LABELS), message: 'The audit trail kept changing; try again' },
    );
  } catch (error) {
    const now = await getWorkLogQualification(entryid);
    if (now?.override)
      throw new ConflictError(`Work log entry ${entryid} was already overridden`, workLogQualificationView(now));
    throw error;
  }
  return workLogQualificationView(signed);
}
