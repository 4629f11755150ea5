/**
 * Skills, competency levels, the qualification matrix and forecasts, the gate's settings
 * (docs/competency.md). Who may do what:
 * - skills: everyone reads; Admins create, change and delete.
 * - a level: set by a trainer's signature (their password): an Admin, or someone whose level 4
 *   in that skill counts (shared/training/trainer-authority.ts); nobody sets their own.
 * - the matrix and forecasts: Admins all of it, team owners their teams, everyone their own row.
 * - site settings: everyone reads, Admins change; a guide's gate: whoever may change the guide.
 * Every change is in the audit trail, in the transaction of the change where it has one.
 */
import { noticeSettings } from '../../shared/db/entities/notice.ts';
import { levelNoticeWrites } from '../../shared/training/notice-queue.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { actorFields, auditActor, type AuthContext, type Caller, isAdmin } from '../../shared/domain/caller.ts';
import { assertCanEditGuide } from '../../shared/content/guide-access.ts';
import { proveSigner, refuseImpersonatedSignature } from '../../shared/accounts/e-signature.ts';
import { AUDIT_CHAIN_LABELS, appendAudit, auditSubject } from '../../shared/db/audit.ts';
import { labelsIn, retryOnLostRace } from '../../shared/db/retry.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';
import { nextId } from '../../shared/db/counters.ts';
import { getGuides } from '../../shared/db/entities/guide.ts';
import { getUser, getUsers, listUsers } from '../../shared/db/entities/user.ts';
import { mapLimit } from '../../shared/training/map-limit.ts';
import { getTeam, listMembers } from '../../shared/db/entities/team.ts';
import { latestRelease } from '../../shared/db/entities/release.ts';
import { deleteSkill, getSkill, listSkills, saveSkill, type SkillRecord } from '../../shared/db/entities/skill.ts';
import {
  allLevelsCollection,
  getLevel,
  levelPut,
  levelsAll,
  levelsOfUser,
  skillLevelsCollection,
  type QualificationLevelRecord,
} from '../../shared/db/entities/qualification-level.ts';
import {
  getTrainingSettings,
  putTrainingSettings,
  type TrainingSettingsRecord,
} from '../../shared/db/entities/training-settings.ts';
import { expiryForecast, levelExpiry } from '../../shared/domain/competency.ts';
import { csvDocument } from '../../shared/domain/csv.ts';
import { assertMayCertify } from '../../shared/training/trainer-authority.ts';
import { levelNames, levelView, matrixCell, skillView, type MatrixRow } from '../../shared/views/competency-views.ts';
import type { Page } from '../../shared/db/paging.ts';
import type {
  ForecastQuery,
  GuideGatingInput,
  MatrixQuery,
  SetLevelInput,
  SiteSettingsInput,
  SkillInput,
  SkillPatchInput,
} from './qualifications.schemas.ts';

/** Team matrices and forecasts read at most this many members. */
const MAX_TEAM_MEMBERS = 1000;

async function requireSkill(skillid: number, consistent = false): Promise<SkillRecord> {
  const skill = await getSkill(skillid, consistent);
  if (!skill) throw new NotFoundError(`No skill with skillid ${skillid}`);
  return skill;
}

async function assertGuidesExist(guideids: number[]): Promise<number[]> {
  const unique = [...new Set(guideids)];
  const found = new Set((await getGuides(unique)).map((guide) => guide.guideid));
  const missing = unique.find((guideid) => !found.has(guideid));
  if (missing !== undefined) throw ValidationError.field('guideids', 'not_found', `No guide with guideid ${missing}`);
  return unique;
}

// ---- skills ----

export async function listAllSkills(page: Page) {
  return (await listSkills(page)).map(skillView);
}

export async function getOneSkill(skillid: number) {
  return skillView(await requireSkill(skillid));
}

export async function createSkill(caller: Caller, input: SkillInput) {
  const guideids = await assertGuidesExist(input.guideids);
  const now = nowSeconds();
  const skill: SkillRecord = {
    skillid: await nextId('skill'),
    name: input.name.trim(),
    description: input.description ?? '',
    guideids,
    recertification_days: input.recertification_days ?? null,
    acknowledgement_strictness: input.acknowledgement_strictness ?? 'major',
    created_date: now,
    modified_date: now,
    version: 1,
  };
  await saveSkill(skill, null);
  await appendAudit({
    action: 'skill.created',
    ...auditActor(caller),
    subjects: [auditSubject.skill(skill.skillid)],
    details: { new: skillView(skill) },
  });
  return skillView(skill);
}

export async function patchSkill(caller: Caller, skillid: number, input: SkillPatchInput) {
  const before = await requireSkill(skillid, true);
  const guideids = input.guideids ? await assertGuidesExist(input.guideids) : before.guideids;
  const after: SkillRecord = {
    ...before,
    ...(input.name !== undefined ? { name: input.name.trim() } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.recertification_days !== undefined ? { recertification_days: input.recertification_days } : {}),
    ...(input.acknowledgement_strictness !== undefined
      ? { acknowledgement_strictness: input.acknowledgement_strictness }
      : {}),
    guideids,
    modified_date: nowSeconds(),
    version: before.version + 1,
  };
  try {
    await saveSkill(after, before);
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('skill'))
      throw new ConflictError(
        'The skill was changed meanwhile; the body is the skill now',
        skillView(await requireSkill(skillid, true)),
      );
    throw error;
  }
  await appendAudit({
    action: 'skill.changed',
    ...auditActor(caller),
    subjects: [auditSubject.skill(skillid)],
    details: { old: skillView(before), new: skillView(after) },
  });
  return skillView(after);
}

export async function removeSkill(caller: Caller, skillid: number): Promise<void> {
  const skill = await requireSkill(skillid, true);
  await deleteSkill(skill);
  await appendAudit({
    action: 'skill.deleted',
    ...auditActor(caller),
    subjects: [auditSubject.skill(skillid)],
    details: { old: skillView(skill) },
  });
}

// ---- levels ----

/**
 * Sets a person's level in a skill by the trainer's signature: the level (on condition of the
 * version read), with its expiry from the skill's recertification interval and the release each
 * of the skill's guides had, and the audit record, in one transaction.
 */
export async function setLevel(
  caller: Caller,
  auth: AuthContext,
  skillid: number,
  userid: number,
  input: SetLevelInput,
  sourceIp: string,
) {
  const skill = await requireSkill(skillid);
  if (!(await getUser(userid))) throw new NotFoundError(`No user with userid ${userid}`);
  const now = nowSeconds();
  // Nobody certifies themselves, an Admin neither (decision 263).
  if (userid === caller.userid) throw new ForbiddenError('Nobody sets their own level');
  await assertMayCertify(caller, skill, now);
  refuseImpersonatedSignature(auth);
  const { authenticated_by, spend } = await proveSigner(await getUser(caller.userid), {
    password: input.password,
    sourceIp,
  });
  const earned = await Promise.all(
    skill.guideids.map(async (guideid) => {
      const release = await latestRelease('guide', guideid);
      return { guideid, release: release ? { major: release.major, minor: release.minor } : null };
    }),
  );
  const names = levelNames(await getTrainingSettings({ kind: 'site' }));
  const notices = await noticeSettings();
  const written = await retryOnLostRace(
    async () => {
      const before = await getLevel(userid, skillid);
      const level: QualificationLevelRecord = {
        userid,
        skillid,
        level: input.level,
        expires_at: input.level > 0 ? levelExpiry(now, skill.recertification_days) : null,
        source: 'trainer_signature',
        set_by_userid: caller.userid,
        set_date: now,
        earned,
        version: (before?.version ?? 0) + 1,
      };
      await appendAudit(
        {
          action: 'qualification.level_set',
          ...auditActor(caller),
          subjects: [auditSubject.user(userid), auditSubject.skill(skillid)],
          details: {
            skillid,
            old: before ? { level: before.level, expires_at: before.expires_at, source: before.source } : null,
            new: { level: level.level, expires_at: level.expires_at, source: level.source },
            signature: { meaning: 'trained', method: 'password', signer_userid: caller.userid, authenticated_by },
          },
        },
        [levelPut(level, before?.version ?? null), ...levelNoticeWrites(level, notices), ...spend],
      );
      return level;
    },
    {
      attempts: 6,
      raceLabels: labelsIn('level', ...AUDIT_CHAIN_LABELS),
      message: 'The level kept changing; try again',
    },
  );
  return levelView(written, names, now);
}

// ---- the matrix and forecasts ----

async function teamMemberIds(caller: Caller, teamid: number): Promise<number[]> {
  const team = await getTeam(teamid);
  if (!team) throw new NotFoundError(`No team with teamid ${teamid}`);
  if (!isAdmin(caller) && team.owner !== caller.userid)
    throw new ForbiddenError("Only the team's owner and Admins read its qualifications");
  return (await listMembers(teamid, { limit: MAX_TEAM_MEMBERS, offset: 0 })).map((member) => member.userid);
}

const byPersonThenSkill = (a: QualificationLevelRecord, b: QualificationLevelRecord) =>
  a.userid - b.userid || a.skillid - b.skillid;

/** Every level the caller may read under the filters, whole (team, own) — or null: read it all (Admins). */
async function readableLevels(caller: Caller, teamid: number | undefined, skillid: number | undefined) {
  if (skillid !== undefined) await requireSkill(skillid);
  const bySkill = (levels: QualificationLevelRecord[]) =>
    skillid === undefined ? levels : levels.filter((level) => level.skillid === skillid);
  if (teamid !== undefined) {
    const members = await teamMemberIds(caller, teamid);
    return bySkill((await Promise.all(members.map(levelsOfUser))).flat()).sort(byPersonThenSkill);
  }
  if (!isAdmin(caller)) return bySkill(await levelsOfUser(caller.userid));
  return null;
}

/** The matrix shows at most this many skills (every skill of a site, in practice). */
const MAX_MATRIX_SKILLS = 500;

async function matrixSkills(skillid: number | undefined): Promise<SkillRecord[]> {
  if (skillid !== undefined) return [await requireSkill(skillid)];
  const skills: SkillRecord[] = [];
  for (let offset = 0; offset < MAX_MATRIX_SKILLS; offset += 100) {
    const page = await listSkills({ limit: 100, offset });
    skills.push(...page);
    if (page.length < 100) break;
  }
  return skills;
}

/** One page of the people the caller may read: Admins everyone, a team's owner its members, others themselves. */
async function matrixPeople(caller: Caller, teamid: number | undefined, page: Page) {
  if (teamid !== undefined) {
    const team = await getTeam(teamid);
    if (!team) throw new NotFoundError(`No team with teamid ${teamid}`);
    if (!isAdmin(caller) && team.owner !== caller.userid)
      throw new ForbiddenError("Only the team's owner and Admins read its qualifications");
    const members = await listMembers(teamid, page);
    return getUsers(members.map((member) => member.userid));
  }
  if (isAdmin(caller)) return listUsers(page);
  if (page.offset > 0) return [];
  const self = await getUser(caller.userid);
  return self ? [self] : [];
}

/**
 * The dense matrix: one row per person (paged over people, by userid), a cell for every skill
 * (or the one asked for), level 0 where none is held (source null).
 */
export async function matrix(caller: Caller, query: MatrixQuery): Promise<MatrixRow[]> {
  const page: Page = { limit: query.limit, offset: query.offset };
  const now = nowSeconds();
  const [skills, people, settings] = await Promise.all([
    matrixSkills(query.skillid),
    matrixPeople(caller, query.teamid, page),
    getTrainingSettings({ kind: 'site' }),
  ]);
  const names = levelNames(settings);
  const sorted = [...people].sort((a, b) => a.userid - b.userid);
  const held = await mapLimit(sorted, 8, (person) => levelsOfUser(person.userid));
  return sorted.map((person, index) => {
    const levels = new Map(held[index].map((level) => [level.skillid, level]));
    return {
      userid: person.userid,
      username: person.username,
      skills: skills.map((skill) => matrixCell(skill, levels.get(skill.skillid), names, now)),
    };
  });
}

const CSV_COLUMNS = [
  'userid',
  'username',
  'skillid',
  'skill_name',
  'level',
  'level_name',
  'expires_at',
  'expired',
  'source',
  'set_by_userid',
  'set_date',
] as const;

/** One line per cell: person × skill. */
export function matrixCsv(rows: MatrixRow[]): string {
  const cells = rows.flatMap((row) =>
    row.skills.map((cell) => ({ userid: row.userid, username: row.username, ...cell }) as Record<string, unknown>),
  );
  return csvDocument(CSV_COLUMNS, cells);
}

export async function forecast(caller: Caller, query: ForecastQuery) {
  const now = nowSeconds();
  const names = levelNames(await getTrainingSettings({ kind: 'site' }));
  const whole = await readableLevels(caller, query.teamid, query.skillid);
  const levels =
    whole ??
    (await levelsAll(query.skillid !== undefined ? skillLevelsCollection(query.skillid) : allLevelsCollection));
  const windows = expiryForecast(levels, now);
  const view = (list: QualificationLevelRecord[]) => list.map((level) => levelView(level, names, now));
  return {
    date: now,
    expired: view(levels.filter((level) => level.expires_at !== null && level.expires_at <= now && level.level > 0)),
    within_30_days: view(windows[30]),
    within_60_days: view(windows[60]),
    within_90_days: view(windows[90]),
  };
}

// ---- settings ----

function siteSettingsView(settings: TrainingSettingsRecord) {
  return {
    gate_mode: settings.gate_mode,
    min_level: settings.min_level,
    acknowledgement_strictness: settings.acknowledgement_strictness,
    acknowledgement_due_days: settings.acknowledgement_due_days,
    level_names: [...levelNames(settings)],
  };
}

export async function getSiteSettings() {
  return siteSettingsView(await getTrainingSettings({ kind: 'site' }));
}

function patched<T extends object>(before: T, input: Partial<T>): T {
  const after = { ...before };
  for (const [key, value] of Object.entries(input))
    if (value !== undefined) (after as Record<string, unknown>)[key] = value;
  return after;
}

export async function putSiteSettings(caller: Caller, input: SiteSettingsInput) {
  const before = await getTrainingSettings({ kind: 'site' });
  const after = { ...patched(before, input), modified_date: nowSeconds(), ...actorFields('modified_by', caller) };
  await putTrainingSettings({ kind: 'site' }, after);
  await appendAudit({
    action: 'qualification.site_settings_changed',
    ...auditActor(caller),
    subjects: [auditSubject.site()],
    details: { old: siteSettingsView(before), new: siteSettingsView(after) },
  });
  return siteSettingsView(after);
}

function gatingView(settings: TrainingSettingsRecord) {
  return { gate_mode: settings.gate_mode, min_level: settings.min_level };
}

export async function getGuideGating(caller: Caller, guideid: number) {
  await assertCanEditGuide(caller, guideid);
  return gatingView(await getTrainingSettings({ kind: 'guide', docid: guideid }));
}

export async function putGuideGating(caller: Caller, guideid: number, input: GuideGatingInput) {
  await assertCanEditGuide(caller, guideid);
  const before = await getTrainingSettings({ kind: 'guide', docid: guideid });
  const after = { ...patched(before, input), modified_date: nowSeconds(), ...actorFields('modified_by', caller) };
  await putTrainingSettings({ kind: 'guide', docid: guideid }, after);
  await appendAudit({
    action: 'qualification.gate_changed',
    ...auditActor(caller),
    subjects: [auditSubject.document('guide', guideid)],
    details: { old: gatingView(before), new: gatingView(after) },
  });
  return gatingView(after);
}
