/**
 * One step of a site import (docs/export-format.md, "Import"). The job moves
 * validating (file, then the target in `empty` mode) -> validated (a dry run ends here) or
 * writing (clearing the first Admin in `empty` mode, then the file) -> finishing (counters,
 * tokens, audit chains, reset links, the search index rebuilt) -> complete; any refusal ends
 * it as failed with the reason in the report. Each step stops after the time budget and saves
 * its offset and pass state.
 */
import { requestPasswordReset } from '../accounts/password-reset.ts';
import { config } from '../config.ts';
import { verifyAuditChain } from '../db/audit-verify.ts';
import { moveCounterPast } from '../db/counters.ts';
import { deleteItem } from '../db/items.ts';
import { nowSeconds } from '../clock.ts';
import { getImport, saveImportStep, type SiteImportRecord } from '../db/entities/site-transfer-job.ts';
import { deleteAllTokensOf } from '../db/entities/token.ts';
import { getUser, userKey } from '../db/entities/user.ts';
import {
  freshValidationPass,
  ImportRefused,
  savedWritingPass,
  type ImportStep,
  type ValidationPass,
  type WritingPass,
} from './import-context.ts';
import { dropScratch, loadScratch, saveScratch } from './import-scratch.ts';
import { emptyTargetRefusal, firstAdminToClear, scanTargetStep, validateFileStep } from './import-validate.ts';
import { clearFirstAdminStep, writeFileStep } from './import-write.ts';
import { rebuildSearchIndex } from '../search/indexer.ts';

const WORKING = new Set(['validating', 'writing', 'finishing']);

export async function runImportStep(importid: number, attempt = 1): Promise<{ done: boolean }> {
  const job = await getImport(importid);
  // An execution of an earlier attempt (stopped, but its step still running) leaves the job alone.
  if (!job || !WORKING.has(job.status) || (job.attempt ?? 1) !== attempt) return { done: true };
  const deadline = Date.now() + config().STEPWISE_TRANSFER_STEP_SECONDS * 1000;
  const step = {
    job,
    report: structuredClone(job.report),
    scratch: await loadScratch(importid),
    full: () => Date.now() >= deadline,
  };
  const saved = structuredClone(job.pass);
  let pass: object = saved;
  let changes: Partial<SiteImportRecord>;
  try {
    if (job.status === 'validating') {
      const validating = { ...step, pass: { ...freshValidationPass(), ...saved } as ValidationPass };
      pass = validating.pass;
      changes = await validate(validating);
      pass = changes.status === 'writing' ? await writingPass(validating) : validating.pass;
    } else if (job.status === 'writing') {
      // The parsed pass is a new object: it is the one the step moves on and the one saved.
      const writing = { ...step, pass: savedWritingPass(job, saved) };
      pass = writing.pass;
      changes = await write(writing);
    } else {
      const finishing = { ...step, pass: savedWritingPass(job, saved) };
      pass = finishing.pass;
      changes = await finish(finishing);
    }
  } catch (error) {
    if (!(error instanceof ImportRefused)) throw error;
    step.report.refusal = error.message;
    changes = { status: 'failed', error: error.message, completed_at: nowSeconds() };
  }
  const finished = changes.status === 'failed' || changes.status === 'validated' || changes.status === 'complete';
  if (finished) await dropScratch(importid);
  else await saveScratch(importid, step.scratch);
  const stored = await saveImportStep(importid, job.steps, attempt, {
    // A finished job keeps no pass state (it may hold the operator's password hash), nor the passphrase.
    pass: finished ? {} : (pass as Record<string, unknown>),
    ...(finished ? { secrets_passphrase: null } : {}),
    report: step.report,
    ...changes,
  });
  return { done: finished || !stored };
}

async function validate(step: ImportStep<ValidationPass>): Promise<Partial<SiteImportRecord>> {
  const { job, pass } = step;
  const size = job.size ?? 1;
  if (pass.phase === 'file') {
    const { offset, finished } = await validateFileStep(step);
    if (!finished) return { offset, percent: Math.floor((offset / size) * 45) };
    pass.phase = 'target';
    if (job.mode === 'merge') return decide(step);
    return { offset, percent: 45 };
  }
  if (!(await scanTargetStep(step))) return { percent: 48 };
  return decide(step);
}

async function write(step: ImportStep<WritingPass>): Promise<Partial<SiteImportRecord>> {
  const { job, pass } = step;
  if (pass.phase === 'clear') {
    if (await clearFirstAdminStep(step)) Object.assign(pass, { phase: 'items', records: 0 });
    return { percent: 52 };
  }
  const { offset, finished } = await writeFileStep(step);
  if (!finished) return { offset, percent: 55 + Math.floor((offset / (job.size ?? 1)) * 40) };
  return { status: 'finishing', offset, percent: 95 };
}

/** After validation: refused, validated (dry run), or on to writing. */
async function decide(step: ImportStep<ValidationPass>): Promise<Partial<SiteImportRecord>> {
  const { job, pass, report } = step;
  if (report.unknown_types.length > 0) {
    throw new ImportRefused(`The file holds item types this site does not know: ${report.unknown_types.join(', ')}`);
  }
  const invalid = report.invalid_items?.total ?? 0;
  if (invalid > 0) {
    throw new ImportRefused(
      `${invalid} items or objects of the file are not what this site writes (see invalid_items); nothing was written`,
    );
  }
  if (job.mode === 'merge' && step.scratch.admin_grants > 0 && !job.allow_admin_grants) {
    throw new ImportRefused(
      `The file gives ${step.scratch.admin_grants} accounts Admin (see privileged): merging it needs ` +
        'allow_admin_grants (npm run import -- --allow-admin-grants)',
    );
  }
  if (step.scratch.sealed_secrets > 0 && !job.secrets_passphrase) {
    throw new ImportRefused(
      `The file holds ${step.scratch.sealed_secrets} webhook secrets sealed with a passphrase: give secrets_passphrase`,
    );
  }
  if (job.mode === 'merge' && report.collisions.total > 0) {
    throw new ImportRefused(
      `${report.collisions.total} items of the file have the key of a different item of the site (see collisions)`,
    );
  }
  if (job.mode === 'empty') {
    const refusal = emptyTargetRefusal(step);
    if (refusal) throw new ImportRefused(refusal);
    if (pass.operator_in_file === null) {
      throw new ImportRefused(
        `The file holds no account with your email (${job.operator.email}): importing it into an empty site ` +
          'would lock you out. Add that account to the source site first, or use mode merge.',
      );
    }
  }
  if (job.dry_run) return { status: 'validated', percent: 100, completed_at: nowSeconds() };
  return { status: 'writing', offset: 0, percent: 50 };
}

/** The writing's starting state: clear the first Admin first when it differs from the file. */
async function writingPass(step: ImportStep<ValidationPass>): Promise<WritingPass> {
  const { job, pass } = step;
  const operator = await getUser(job.operator.userid, { consistent: true });
  return {
    phase: job.mode === 'empty' && firstAdminToClear(step) ? 'clear' : 'items',
    records: 0,
    written: 0,
    present: 0,
    operator_hash: operator?.password_hash ?? '',
    operator_privileges: operator?.privileges ?? ['Admin'],
    operator_in_file: pass.operator_in_file,
    clear: { segment: 0, last_key: null },
  };
}

/** Counters past the imported ids, the operator's old tokens, audit chains re-verified, reset links. */
async function finish(step: ImportStep<WritingPass>): Promise<Partial<SiteImportRecord>> {
  const { job, pass, report, scratch } = step;
  const types = new Set([...Object.keys(scratch.counters), ...Object.keys(scratch.highest)]);
  for (const type of types) {
    await moveCounterPast(type, Math.max(scratch.counters[type] ?? 0, scratch.highest[type] ?? 0));
  }
  const fileUserid = pass.operator_in_file;
  if (job.mode === 'empty' && fileUserid !== null && fileUserid !== job.operator.userid) {
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
  report.written = pass.written;
  if (job.mail_password_resets) {
    for (const email of new Set(scratch.resets)) await requestPasswordReset(email);
  }
  // The search index is derived data the file does not carry: made again from what is now in the table.
  await rebuildSearchIndex();
  return { status: 'complete', percent: 100, completed_at: nowSeconds() };
}
