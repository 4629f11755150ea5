/**
 * Who may play a module and what a launch gives them (issue 37): the modules group's player and
 * commit routes and the player page (`/ExternalTrainingModule/{id}`, functions/pages) decide access
 * here, one way. A learner assigned to a course that contains the module plays it and keeps an
 * attempt; a module manager (or Admin) who is not assigned previews the current version, and
 * nothing they do is kept.
 */
import { nowSeconds } from '../clock.ts';
import { type Caller, isAdmin } from '../domain/caller.ts';
import { CAPABILITY_SCHEME, commitCapability, openCommitCapability } from '../domain/commit-capability.ts';
import { ForbiddenError, NotFoundError, UnauthenticatedError } from '../domain/errors.ts';
import { CONTENT_TOKEN_SECONDS, contentOrigin, contentSigningKey } from '../storage/module-content.ts';
import { isUserAssignedToAnyCourse } from '../db/entities/course-enrollment.ts';
import { getImport, type ModuleImportRecord } from '../db/entities/module-import.ts';
import { moduleUsageChunks } from '../db/entities/module-usage.ts';
import { getModule, type TrainingModuleRecord } from '../db/entities/training-module.ts';
import { getUser } from '../db/entities/user.ts';
import { playerView } from '../views/module-views.ts';
import { commit, launchState } from './scorm-attempts.ts';
import type { CommitInput } from './scorm-commit-input.ts';

/** The account flag that lets a user who is not an Admin manage external training modules. */
export const MANAGE_MODULES_FLAG = 'manage_external_training_modules';

export async function canManageModules(caller: Caller): Promise<boolean> {
  if (isAdmin(caller)) return true;
  return (await getUser(caller.userid))?.flags?.includes(MANAGE_MODULES_FLAG) ?? false;
}

export async function requireModule(moduleid: number): Promise<TrainingModuleRecord> {
  const module = await getModule(moduleid);
  if (!module) throw new NotFoundError(`No external training module with id ${moduleid}`);
  return module;
}

/** Whether the user is assigned to a course that contains the module (the player's access rule). */
export async function isAssignedToModule(userid: number, moduleid: number): Promise<boolean> {
  for await (const courses of moduleUsageChunks(moduleid)) {
    if (
      await isUserAssignedToAnyCourse(
        userid,
        courses.map((course) => course.wikiid),
      )
    )
      return true;
  }
  return false;
}

/** Users assigned to a course that contains the module (Admins too: previewing is …/imports/{importid}/preview). */
export async function requireAssigned(caller: Caller, moduleid: number): Promise<TrainingModuleRecord> {
  const module = await requireModule(moduleid);
  if (!(await isAssignedToModule(caller.userid, moduleid)))
    throw new ForbiddenError('You are not assigned to a course that contains this module');
  return module;
}

export async function currentImport(module: TrainingModuleRecord): Promise<ModuleImportRecord> {
  const record = module.current_importid === null ? undefined : await getImport(module.current_importid);
  if (!record) throw new NotFoundError(`Module ${module.moduleid} has no current version`);
  return record;
}

export type PlayerMode = 'learner' | 'preview';

/**
 * The player page's launch: a learner's player data with their attempt, or a manager's preview
 * of the current version (no attempt: nothing is kept). Anyone else is refused (403).
 */
export async function pagePlayer(caller: Caller, moduleid: number) {
  const module = await requireModule(moduleid);
  const mode: PlayerMode | 'none' = (await isAssignedToModule(caller.userid, moduleid))
    ? 'learner'
    : (await canManageModules(caller))
      ? 'preview'
      : 'none';
  if (mode === 'none') throw new ForbiddenError('You are not assigned to a course that contains this module');
  const record = await currentImport(module);
  const attempt = mode === 'learner' ? await launchState(caller, record) : null;
  return { mode: mode as PlayerMode, module, record, player: await playerView(record, attempt) };
}

/** A commit of the runtime (decision 271): assigned learners only, to their own attempts. */
export async function commitModuleAttempt(caller: Caller, moduleid: number, attempt: number, input: CommitInput) {
  const record = await currentImport(await requireAssigned(caller, moduleid));
  return (await commit(caller, record, attempt, input)).attempt;
}

/** The site path where the runtime commits with its capability (decision 326). */
export function runtimeCommitPath(moduleid: number, attempt: number): string {
  return `/ExternalTrainingModule/${moduleid}/attempts/${attempt}/runtime_commit`;
}

/** The capability the player page hands the runtime at launch: this learner, module and attempt, for a sitting. */
export async function issueCommitCapability(caller: Caller, moduleid: number, attempt: number): Promise<string> {
  const expires = nowSeconds() + CONTENT_TOKEN_SECONDS;
  return commitCapability(await contentSigningKey(), { moduleid, userid: caller.userid, attempt, expires });
}

/**
 * Who a runtime commit acts for (decision 326): the learner its capability names, if the capability
 * is this module's and attempt's, unexpired and unchanged (else 401), sent by the content origin
 * when a browser sends it (another Origin: 403), and the learner still exists.
 */
export async function runtimeCaller(
  moduleid: number,
  attempt: number,
  headers: Record<string, string>,
): Promise<Caller> {
  const match = new RegExp(`^${CAPABILITY_SCHEME} (\\S+)$`).exec(headers.authorization ?? '');
  const grant = match
    ? openCommitCapability(await contentSigningKey(), match[1]!, moduleid, attempt, nowSeconds())
    : null;
  if (!grant)
    throw new UnauthenticatedError(`A runtime commit needs its launch's capability (${CAPABILITY_SCHEME} ...)`);
  const origin = headers.origin;
  if (origin !== undefined && origin !== new URL(contentOrigin()).origin)
    throw new ForbiddenError('Runtime commits come from the content origin only');
  const user = await getUser(grant.userid);
  if (!user) throw new UnauthenticatedError('The capability names no user');
  return { userid: user.userid, username: user.username, privileges: user.privileges, teams: user.teams };
}
