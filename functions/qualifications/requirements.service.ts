/**
 * Required skills per team and per role, and the gap report (docs/competency.md "Requirements
 * and gaps"). Who may do what:
 * - a team's requirements: its owner and Admins set them; its members, its owner and Admins read them;
 * - a role's: Admins set them; everyone reads them;
 * - the gap report: Admins everyone (or a team's members), a team's owner its members, a trainer
 *   in a skill (trainer-authority.ts) everyone that skill is required of, anyone their own row.
 * No Scan: a person's requirements are their teams' partitions and the three role partitions.
 */
import { nowSeconds } from '../../shared/clock.ts';
import { DAY_SECONDS } from '../../shared/domain/competency.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { actorFields, auditActor, isAdmin, type Caller } from '../../shared/domain/caller.ts';
import { csvDocument } from '../../shared/domain/csv.ts';
import {
  gapStatus,
  mergeRequirements,
  roleApplies,
  type Requirement,
  type RequiredBy,
} from '../../shared/domain/requirement-gaps.ts';
import { AUDIT_CHAIN_LABELS, appendAudit, auditSubject } from '../../shared/db/audit.ts';
import { labelsIn, retryOnLostRace } from '../../shared/db/retry.ts';
import { getSkill, getSkills, type SkillRecord } from '../../shared/db/entities/skill.ts';
import { getTeam, isMember, listMembers, type TeamRecord } from '../../shared/db/entities/team.ts';
import { getUser, getUsers, listUsers, type UserRecord } from '../../shared/db/entities/user.ts';
import { levelsOfUser } from '../../shared/db/entities/qualification-level.ts';
import {
  REQUIREMENT_ROLES,
  replaceRequirementWrites,
  requirementsOf,
  requirementsOfSkill,
  type RequirementRole,
  type RequirementScope,
  type SkillRequirementRecord,
} from '../../shared/db/entities/skill-requirement.ts';
import { mapLimit } from '../../shared/training/map-limit.ts';
import { skillStandings } from '../../shared/training/qualification-gate.ts';
import { certifyShortfalls } from '../../shared/training/trainer-authority.ts';
import { gapCell, gapRow, requirementsView, type GapRow } from '../../shared/views/requirement-views.ts';
import type { Page } from '../../shared/db/paging.ts';
import { DEFAULT_LEAD_DAYS, requirementRole, type GapsQuery, type RequirementsInput } from './requirements.schemas.ts';

/** A team's members the report reads at most (as the matrix). */
const MAX_TEAM_MEMBERS = 1000;

async function requireTeam(teamid: number): Promise<TeamRecord> {
  const team = await getTeam(teamid);
  if (!team) throw new NotFoundError(`No team with teamid ${teamid}`);
  return team;
}

const skillMap = async (skillids: number[]) =>
  new Map((await getSkills([...new Set(skillids)])).map((skill) => [skill.skillid, skill]));

const scopeFields = (scope: RequirementScope) =>
  scope.scope === 'team' ? { teamid: scope.teamid, role: null } : { teamid: null, role: scope.role };

async function scopeView(scope: RequirementScope, requirements: SkillRequirementRecord[]) {
  return requirementsView(
    scopeFields(scope),
    requirements,
    await skillMap(requirements.map((requirement) => requirement.skillid)),
  );
}

export async function getTeamRequirements(caller: Caller, teamid: number) {
  const team = await requireTeam(teamid);
  if (!isAdmin(caller) && team.owner !== caller.userid && !(await isMember(teamid, caller.userid)))
    throw new ForbiddenError("Only the team's members, its owner and Admins read its requirements");
  const scope: RequirementScope = { scope: 'team', teamid };
  return scopeView(scope, await requirementsOf(scope));
}

function requireRole(name: string): RequirementRole {
  const role = requirementRole(name);
  if (!role) throw new NotFoundError(`No role ${name}: roles are ${REQUIREMENT_ROLES.join(', ')}`);
  return role;
}

export async function getRoleRequirements(name: string) {
  const role = requireRole(name);
  const scope: RequirementScope = { scope: 'role', role };
  return scopeView(scope, await requirementsOf(scope));
}

/** Replaces a scope's required skills with the audit record, all or nothing (unknown skills 422). */
async function replaceRequirements(caller: Caller, scope: RequirementScope, input: RequirementsInput) {
  const skillids = input.requirements.map((requirement) => requirement.skillid);
  const duplicate = skillids.find((skillid, index) => skillids.indexOf(skillid) !== index);
  if (duplicate !== undefined)
    throw ValidationError.field('requirements', 'duplicate', `Skill ${duplicate} is listed twice`);
  const skills = await skillMap(skillids);
  const unknown = skillids.find((skillid) => !skills.has(skillid));
  if (unknown !== undefined)
    throw ValidationError.field('requirements', 'not_found', `No skill with skillid ${unknown}`);
  const now = nowSeconds();
  const after: SkillRequirementRecord[] = input.requirements.map((requirement) => ({
    scope: scope.scope,
    ...scopeFields(scope),
    skillid: requirement.skillid,
    level: requirement.level,
    ...actorFields('set_by_userid', caller),
    set_date: now,
  }));
  const subject = scope.scope === 'team' ? auditSubject.team(scope.teamid) : auditSubject.site();
  await retryOnLostRace(
    async () => {
      const before = await requirementsOf(scope);
      await appendAudit(
        {
          action: 'qualification.requirements_changed',
          ...auditActor(caller),
          subjects: [subject],
          details: {
            ...scopeFields(scope),
            old: before.map(({ skillid, level }) => ({ skillid, level })),
            new: after.map(({ skillid, level }) => ({ skillid, level })),
          },
        },
        replaceRequirementWrites(scope, before, after),
      );
    },
    {
      attempts: 6,
      raceLabels: labelsIn('requirement:', ...AUDIT_CHAIN_LABELS),
      message: 'The requirements kept changing; try again',
    },
  );
  return requirementsView(scopeFields(scope), after, skills);
}

export async function putTeamRequirements(caller: Caller, teamid: number, input: RequirementsInput) {
  const team = await requireTeam(teamid);
  if (!isAdmin(caller) && team.owner !== caller.userid)
    throw new ForbiddenError("Only the team's owner and Admins set its required skills");
  return replaceRequirements(caller, { scope: 'team', teamid }, input);
}

export function putRoleRequirements(caller: Caller, name: string, input: RequirementsInput) {
  return replaceRequirements(caller, { scope: 'role', role: requireRole(name) }, input);
}

// ---- the gap report ----

/** Whose rows the caller reads, one page of people (by userid). */
async function gapPeople(caller: Caller, query: GapsQuery, page: Page, skill: SkillRecord | null) {
  if (query.teamid !== undefined) {
    const team = await requireTeam(query.teamid);
    if (!isAdmin(caller) && team.owner !== caller.userid)
      throw new ForbiddenError("Only the team's owner and Admins read its gaps");
    return getUsers((await listMembers(query.teamid, page)).map((member) => member.userid));
  }
  if (isAdmin(caller)) return listUsers(page);
  if (skill && (await certifyShortfalls(caller.userid, skill, nowSeconds())).length === 0) {
    // A trainer in the skill: everyone it is required of. A role's requirement reaches any user.
    const requiring = await requirementsOfSkill(skill.skillid);
    if (requiring.some((requirement) => requirement.scope === 'role')) return listUsers(page);
    const teams = requiring.flatMap((requirement) => (requirement.teamid === null ? [] : [requirement.teamid]));
    const members = await mapLimit(teams, 4, (teamid) => listMembers(teamid, { limit: MAX_TEAM_MEMBERS, offset: 0 }));
    const userids = [...new Set(members.flat().map((member) => member.userid))].sort((a, b) => a - b);
    return getUsers(userids.slice(page.offset, page.offset + page.limit));
  }
  if (page.offset > 0) return [];
  const self = await getUser(caller.userid);
  return self ? [self] : [];
}

/** Every requirement of the people's teams and of the three roles, read once for the page. */
async function requirementsFor(people: UserRecord[]) {
  const teamids = [...new Set(people.flatMap((person) => person.teams))];
  const [teamLists, roleLists] = await Promise.all([
    mapLimit(teamids, 8, (teamid) => requirementsOf({ scope: 'team', teamid })),
    Promise.all(REQUIREMENT_ROLES.map((role) => requirementsOf({ scope: 'role', role }))),
  ]);
  const byTeam = new Map(teamids.map((teamid, index) => [teamid, teamLists[index]]));
  const toRequirement = (record: SkillRequirementRecord): Requirement => ({
    skillid: record.skillid,
    level: record.level,
    by: (record.scope === 'team'
      ? { scope: 'team', teamid: record.teamid }
      : { scope: 'role', role: record.role }) as RequiredBy,
  });
  return (person: UserRecord) =>
    mergeRequirements([
      ...person.teams.flatMap((teamid) => byTeam.get(teamid) ?? []).map(toRequirement),
      ...roleLists
        .flat()
        .filter((record) => record.role !== null && roleApplies(record.role, person.privileges))
        .map(toRequirement),
    ]);
}

/**
 * The gap report: one row per person of the page (by userid), a cell per skill required of them
 * (or only `skillid`) with the level required, held, its expiry and its status.
 */
export async function gaps(caller: Caller, query: GapsQuery): Promise<GapRow[]> {
  const page: Page = { limit: query.limit, offset: query.offset };
  const now = nowSeconds();
  const lead = (query.lead_days ?? DEFAULT_LEAD_DAYS) * DAY_SECONDS;
  const skill = query.skillid === undefined ? null : ((await getSkill(query.skillid)) ?? null);
  if (query.skillid !== undefined && !skill) throw new NotFoundError(`No skill with skillid ${query.skillid}`);
  const people = [...(await gapPeople(caller, query, page, skill))].sort((a, b) => a.userid - b.userid);
  const requiredOf = await requirementsFor(people);
  const required = people.map((person) => {
    const merged = requiredOf(person);
    if (skill) for (const skillid of merged.keys()) if (skillid !== skill.skillid) merged.delete(skillid);
    return merged;
  });
  const [skills, held] = await Promise.all([
    skillMap(required.flatMap((merged) => [...merged.keys()])),
    mapLimit(people, 8, (person) => levelsOfUser(person.userid)),
  ]);
  const levelsOf = held.map((levels) => new Map(levels.map((level) => [level.skillid, level])));
  // Levels that would meet the requirement are put to the gate's test (an outdated one counts as 0).
  const tested = people.flatMap((_, index) =>
    [...required[index]].flatMap(([skillid, requirement]) => {
      const level = levelsOf[index].get(skillid);
      const skill = skills.get(skillid);
      const status = level ? gapStatus(requirement.level, level, now, lead) : 'missing';
      return level && skill && (status === 'met' || status === 'expiring') ? [{ held: level, skill }] : [];
    }),
  );
  const standings = await skillStandings(tested, now);
  const standingOf = new Map(tested.map((entry, index) => [entry.held, standings[index]]));
  return people.map((person, index) => {
    const levels = levelsOf[index];
    const cells = [...required[index]].flatMap(([skillid, requirement]) => {
      const known = skills.get(skillid);
      if (!known) return []; // a deleted skill's requirement asks nothing
      const level = levels.get(skillid);
      const standing = level ? standingOf.get(level) : undefined;
      return [gapCell(known, requirement, level, gapStatus(requirement.level, level ?? null, now, lead, standing))];
    });
    return gapRow(person, cells);
  });
}

const GAP_CSV_COLUMNS = [
  'userid',
  'username',
  'skillid',
  'skill_name',
  'required_level',
  'level',
  'expires_at',
  'status',
  'required_by',
] as const;

/** One line per person and required skill; `required_by` as `team:<id>` / `role:<name>`, `;`-joined. */
export function gapsCsv(rows: GapRow[]): string {
  return csvDocument(
    GAP_CSV_COLUMNS,
    rows.flatMap((row) =>
      row.skills.map((cell) => ({
        userid: row.userid,
        username: row.username,
        ...cell,
        required_by: cell.required_by
          .map((by) => (by.scope === 'team' ? `team:${by.teamid}` : `role:${by.role}`))
          .join(';'),
      })),
    ),
  );
}
