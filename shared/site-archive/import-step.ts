/**
 * One step of a site import (docs/export-format.md, "Import"). The job moves
 * validating (file, then the target in `empty` mode) -> validated (a dry run ends here) or
 * writing (clearing the first Admin in `empty` mode, then the file) -> finishing (counters,
 * tokens, audit chains, reset links) -> complete; any refusal ends it as failed with the reason
 * in the report. Each step stops after the time budget and saves its offset and pass state.
 */
import { requestPasswordReset } from '../accounts/password-reset.ts';
import { config } from '../config.ts';
import { verifyAuditChain } from '../db/audit-verify.ts';
import { moveCounterPast } from '../db/counters.ts';
import { deleteItem, getItem } from '../db/items.ts';
import { nowSeconds } from '../db/keys.ts';
import { getImport, saveImportStep, type SiteImportRecord } from '../db/entities/site-transfer-job.ts';
import { deleteAllTokensOf } from '../db/entities/token.ts';
import { userKey } from '../db/entities/user.ts';
import { ImportRefused, type ImportStep } from './import-context.ts';
import { dropScratch, loadScratch, saveScratch } from './import-scratch.ts';
import { emptyTargetRefusal, firstAdminToClear, scanTargetStep, validateFileStep } from './import-validate.ts';
import { clearFirstAdminStep, writeFileStep } from './import-write.ts';

const WORKING = new Set(['validating', 'writing', 'finishing']);

export async function runImportStep(importid: number): Promise<{ done: boolean }> {
  const job = await getImport(importid);
  if (!job || !WORKING.has(job.status)) return { done: true };
  const deadline = Date.now() + config().STEPWISE_TRANSFER_STEP_SECONDS * 1000;
  const step: ImportStep = {
    job,
    report: structuredClone(job.report),
    pass: structuredClone(job.pass),
    scratch: await loadScratch(importid),
    full: () => Date.now() >= deadline,
  };
  let changes: Partial<SiteImportRecord>;
  try {
    changes = await advance(step);
  } catch (error) {
    if (!(error instanceof ImportRefused)) throw error;
    step.report.refusal = error.message;
    changes = { status: 'failed', error: error.message, completed_at: nowSeconds(), pass: {} };
  }
  const finished = changes.status === 'failed' || changes.status === 'validated' || changes.status === 'complete';
  if (finished) await dropScratch(importid);
  else await saveScratch(importid, step.scratch);
  const saved = await saveImportStep(importid, job.steps, { pass: step.pass, report: step.report, ...changes });
  return { done: finished || !saved };
}

async function advance(step: ImportStep): Promise<Partial<SiteImportRecord>> {
  const { job, pass } = step;
  const size = job.size ?? 1;
  if (job.status === 'validating') {
    pass.phase ??= 'file';
    if (pass.phase === 'file') {
      Object.assign(pass, { records: pass.records ?? 0, same_footprint: pass.same_footprint ?? 0 });
      Object.assign(pass, { same_other: pass.same_other ?? 0, same_users: pass.same_users ?? 0 });
      const { offset, finished } = await validateFileStep(step);
      if (!finished) return { offset, percent: Math.floor((offset / size) * 45) };
      pass.phase = 'target';
      if (job.mode === 'merge') return decide(step);
      return { offset, percent: 45 };
    }
    if (!(await scanTargetStep(step))) return { percent: 48 };
    return decide(step);
  }
  if (job.status === 'writing') {
    if (pass.phase === 'clear') {
      if (await clearFirstAdminStep(step)) Object.assign(pass, { phase: 'items', records: 0 });
      return { percent: 52 };
    }
    const { offset, finished } = await writeFileStep(step);
    if (!finished) return { offset, percent: 55 + Math.floor((offset / size) * 40) };
    return { status: 'finishing', offset, percent: 95 };
  }
  return finish(step);
}

/** After validation: refused, validated (dry run), or on to writing. */
async function decide(step: ImportStep): Promise<Partial<SiteImportRecord>> {
  const { job, pass, report } = step;
  if (report.unknown_types.length > 0) {
    throw new ImportRefused(`The file holds item types this site does not know: ${report.unknown_types.join(', ')}`);
  }
  if (job.mode === 'merge' && report.collisions.total > 0) {
    throw new ImportRefused(
      `${report.collisions.total} items of the file have the key of a different item of the site (see collisions)`,
    );
  }
  if (job.mode === 'empty') {
    const refusal = emptyTargetRefusal(step);
    if (refusal) throw new ImportRefused(refusal);
    if (pass.operator_in_file === undefined) {
      throw new ImportRefused(
        `The file holds no account with your email (${job.operator.email}): importing it into an empty site ` +
          'would lock you out. Add that account to the source site first, or use mode merge.',
      );
    }
  }
  if (job.dry_run) return { status: 'validated', percent: 100, completed_at: nowSeconds(), pass: {} };
  const operator = await getItem(userKey(job.operator.userid), { consistent: true });
  const clear = job.mode === 'empty' && firstAdminToClear(step);
  step.pass = {
    phase: clear ? 'clear' : 'items',
    records: 0,
    written: 0,
    present: 0,
    operator_hash: operator?.password_hash ?? '',
    operator_in_file: pass.operator_in_file ?? null,
  };
  return { status: 'writing', offset: 0, percent: 50 };
}

/** Counters past the imported ids, the operator's tokens, audit chains re-verified, reset links. */
async function finish(step: ImportStep): Promise<Partial<SiteImportRecord>> {
  const { job, pass, report, scratch } = step;
  const types = new Set([...Object.keys(scratch.counters), ...Object.keys(scratch.highest)]);
  for (const type of types) {
    await moveCounterPast(type, Math.max(scratch.counters[type] ?? 0, scratch.highest[type] ?? 0));
  }
  const fileUserid = pass.operator_in_file;
  if (job.mode === 'empty' && typeof fileUserid === 'number' && fileUserid !== job.operator.userid) {
    // The operator's account now has the file's userid. Tokens name their userid, so the old
    // ones cannot follow: they go, and the operator logs in again with the same password. The
    // old account item goes too unless the file wrote another account under that id.
    await deleteAllTokensOf(job.operator.userid);
    if (!scratch.defined.user?.has(job.operator.userid)) await deleteItem(userKey(job.operator.userid));
  }
  const broken: string[] = [];
  const subjects = [...new Set(scratch.chains)];
  for (const subject of subjects) {
    const check = await verifyAuditChain(subject);
    if (!check.valid) broken.push(`${subject}: ${check.problem} at seq ${check.first_broken_seq}`);
  }
  report.chains = { verified: subjects.length - broken.length, broken };
  report.written = pass.written ?? 0;
  if (job.mail_password_resets) {
    for (const email of new Set(scratch.resets)) await requestPasswordReset(email);
  }
  step.pass = {};
  return { status: 'complete', percent: 100, completed_at: nowSeconds() };
}
