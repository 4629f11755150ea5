/**
 * Skills, competency levels, the qualification matrix, expiry forecasts and the settings of the
 * gate on work (docs/competency.md; beyond the spec, in its style: ids, offset/limit, its errors).
 */
import * as z from 'zod/mini';
import { defineGroup, rawReply, route } from '../../shared/http/route.ts';
import { stepUpRefusal } from '../../shared/http/step-up-refusal.ts';
import { idParams } from '../../shared/http/schemas.ts';
import { pagination } from '../../shared/http/query.ts';
import { levelSchema, matrixRowSchema, skillSchema } from '../../shared/views/competency-views.ts';
import { GATE_MODES } from '../../shared/domain/competency.ts';
import * as qualifications from './qualifications.service.ts';
import * as courseLevels from './course-levels.service.ts';
import * as requirements from './requirements.service.ts';
import { gapsQuery, requirementsBody, roleParams } from './requirements.schemas.ts';
import { gapRowSchema, requirementsSchema } from '../../shared/views/requirement-views.ts';
import {
  courseLevelsBody,
  forecastQuery,
  guideGatingBody,
  matrixQuery,
  setLevelBody,
  siteSettingsBody,
  skillBody,
  skillPatchBody,
} from './qualifications.schemas.ts';

const skillParams = idParams('skillid');
const strictness = z.nullable(z.enum(['major', 'minor']));
const siteSettingsSchema = z.object({
  gate_mode: z.nullable(z.enum(GATE_MODES)),
  min_level: z.nullable(z.int()),
  acknowledgement_strictness: strictness,
  acknowledgement_due_days: z.nullable(z.int()),
  level_names: z.array(z.string()),
});
const gatingSchema = z.object({ gate_mode: z.nullable(z.enum(GATE_MODES)), min_level: z.nullable(z.int()) });
const courseLevelsSchema = z.object({
  wikiid: z.int(),
  grants: z.array(z.object({ course_stageid: z.nullable(z.int()), skillid: z.int(), level: z.int() })),
});
const courseLevelsNote =
  '`grants`: completing the stage `course_stageid` (null: the whole course) gives `level` (1-4) in `skillid`, ' +
  "source `signoff` when the stage is assessed by a signoff, else `course_completion`, expiring after the skill's " +
  "`recertification_days`. A higher level stays (a trainer's always); a level set after the completion stays.";
const requirementsNote =
  '`requirements`: the skills required and the level (1-4) in each; the whole list is replaced (at most 40; ' +
  "[] clears it). Unknown skills and a skill listed twice are 422. Audited (the team's chain; roles: the site's).";
const wantsCsv = (format: string | undefined, accept: string | undefined) =>
  format === 'csv' || (format === undefined && /\btext\/csv\b/i.test(accept ?? ''));
const levelsNote =
  'Levels: 0 not trained, 1 in training, 2 can do under supervision, 3 independent, 4 can train others ' +
  '(`level_names` of the site settings rename them).';

export const qualificationsGroup = defineGroup({
  name: 'qualifications',
  access: { table: 'readwrite', conditionChecks: true },
  routes: [
    route({
      method: 'GET',
      path: '/qualifications/skills',
      auth: 'user',
      summary: 'Skills, by skillid',
      description: 'A skill is a guide or a named group of guides that people hold a level in. `limit`, `offset`.',
      query: z.object(pagination),
      response: z.array(skillSchema),
      handler: ({ query }) => qualifications.listAllSkills(query),
    }),
    route({
      method: 'POST',
      path: '/qualifications/skills',
      auth: 'admin',
      status: 201,
      summary: 'Create a skill',
      description:
        '`guideids` (1-90 existing guides); `recertification_days`: how long a level stays valid (null: for good); ' +
        '`acknowledgement_strictness`: which releases of its guides ask holders outside any course to acknowledge ' +
        'them (`major`, the default, or `minor`). Audited.',
      body: skillBody,
      example: {
        name: 'Nozzle service',
        guideids: [1],
        recertification_days: 365,
        acknowledgement_strictness: 'major',
      },
      response: skillSchema,
      handler: ({ caller, body }) => qualifications.createSkill(caller, body),
    }),
    route({
      method: 'GET',
      path: '/qualifications/skills/{skillid}',
      auth: 'user',
      summary: 'One skill',
      params: skillParams,
      response: skillSchema,
      handler: ({ params }) => qualifications.getOneSkill(params.skillid),
    }),
    route({
      method: 'PATCH',
      path: '/qualifications/skills/{skillid}',
      auth: 'admin',
      summary: 'Change a skill (fields left out stay); 409 with the skill when it changed meanwhile',
      params: skillParams,
      body: skillPatchBody,
      example: { recertification_days: 180 },
      response: skillSchema,
      handler: ({ caller, params, body }) => qualifications.patchSkill(caller, params.skillid, body),
    }),
    route({
      method: 'DELETE',
      path: '/qualifications/skills/{skillid}',
      auth: 'admin',
      status: 204,
      summary: 'Delete a skill (levels held in it stay in the audit trail)',
      params: skillParams,
      handler: async ({ caller, params }) => {
        await qualifications.removeSkill(caller, params.skillid);
      },
    }),
    route({
      method: 'PUT',
      path: '/qualifications/skills/{skillid}/levels/{userid}',
      auth: 'user',
      summary: "Set a person's level in a skill by the trainer's signature",
      description:
        `${levelsNote} The trainer signs with their \`password\` (422 on \`password\` when wrong, 429 past the login ` +
        'throttle): an Admin, or a trainer whose level 4 in the skill counts (not expired, not outdated by a newer ' +
        'major release of a guide of the skill; 403 naming why otherwise); nobody sets their own. ' +
        "The level expires after the skill's `recertification_days` and counts for the " +
        "guides' releases current now. Audited (the person's and the skill's chains). " +
        'A signer who signs in through a company identity provider leaves `password` out: a fresh step-up ' +
        'there (GET /api/2.0/user/step_up) stands for it, once; their password is a 403 carrying `step_up_url`.',
      params: idParams('skillid', 'userid'),
      body: setLevelBody,
      example: { level: 3, password: 'your password' },
      response: levelSchema,
      errorResponses: stepUpRefusal,
      handler: ({ caller, auth, params, body, sourceIp }) =>
        qualifications.setLevel(caller, auth, params.skillid, params.userid, body, sourceIp),
    }),
    route({
      method: 'GET',
      path: '/qualifications/matrix',
      auth: 'user',
      summary: 'The qualification matrix: people × skills with level, expiry and source (JSON or CSV)',
      description:
        'Dense: one row per person (by userid; `limit` and `offset` page over people), with a cell for every ' +
        'skill, level 0 (source null) where none is held. `teamid`: its members (the team owner or an Admin); ' +
        '`skillid`: that skill only. Without `teamid` Admins read everyone, others their own row. `format=csv` ' +
        'answers text/csv, one line per person and skill. `limit` (1-200, default 20), `offset`.',
      query: matrixQuery,
      response: z.array(matrixRowSchema),
      handler: async ({ caller, query }) => {
        const rows = await qualifications.matrix(caller, query);
        if (query.format === 'csv') return rawReply(200, qualifications.matrixCsv(rows), 'text/csv; charset=utf-8');
        return rows;
      },
    }),
    route({
      method: 'GET',
      path: '/qualifications/requirements/teams/{teamid}',
      auth: 'user',
      summary: 'The skills a team requires of its members, and the level in each',
      description: "The team's members, its owner and Admins read them (403 otherwise).",
      params: idParams('teamid'),
      response: requirementsSchema,
      handler: ({ caller, params }) => requirements.getTeamRequirements(caller, params.teamid),
    }),
    route({
      method: 'PUT',
      path: '/qualifications/requirements/teams/{teamid}',
      auth: 'user',
      summary: 'Set the skills a team requires (the whole list)',
      description: `${requirementsNote} The team's owner and Admins.`,
      params: idParams('teamid'),
      body: requirementsBody,
      example: { requirements: [{ skillid: 3, level: 3 }] },
      response: requirementsSchema,
      handler: ({ caller, params, body }) => requirements.putTeamRequirements(caller, params.teamid, body),
    }),
    route({
      method: 'GET',
      path: '/qualifications/requirements/roles/{role}',
      auth: 'user',
      summary: 'The skills a role (Admin, Author, User) requires, and the level in each',
      description:
        'Roles nest: what `User` requires applies to everyone, `Author` to Authors and Admins. Everyone reads them; ' +
        'another role is 404.',
      params: roleParams,
      response: requirementsSchema,
      handler: ({ params }) => requirements.getRoleRequirements(params.role),
    }),
    route({
      method: 'PUT',
      path: '/qualifications/requirements/roles/{role}',
      auth: 'admin',
      summary: 'Set the skills a role requires (the whole list)',
      description: `${requirementsNote} Admins.`,
      params: roleParams,
      body: requirementsBody,
      example: { requirements: [{ skillid: 3, level: 2 }] },
      response: requirementsSchema,
      handler: ({ caller, params, body }) => requirements.putRoleRequirements(caller, params.role, body),
    }),
    route({
      method: 'GET',
      path: '/qualifications/gaps',
      auth: 'user',
      summary: 'The gap report: people × required skills, what is missing, expired, outdated or expiring (JSON or CSV)',
      description:
        'One row per person (by userid; `limit` and `offset` page over people), a cell per skill required of them by ' +
        'their teams and roles (the highest level asked; `required_by` names who asks) with `status`: `missing` ' +
        '(none held, or below), `expired`, `outdated` (a newer major release of a guide of the skill outdates it, ' +
        'as at the gate), `expiring` (lapses within `lead_days`, default 30, 0-365) or `met`. ' +
        '`teamid`: its members (its owner or an Admin). Without it: Admins everyone; with `skillid`, a trainer in ' +
        'the skill (level 4 that counts) everyone it is required of; others their own row. `skillid`: that skill ' +
        'only. `format=csv` or `Accept: text/csv` answers text/csv, one line per person and required skill (cells ' +
        "starting with = + - @ are prefixed with '). `limit` (1-200, default 20), `offset`.",
      query: gapsQuery,
      response: z.array(gapRowSchema),
      handler: async ({ caller, query, headers }) => {
        const rows = await requirements.gaps(caller, query);
        if (wantsCsv(query.format, headers.accept))
          return rawReply(200, requirements.gapsCsv(rows), 'text/csv; charset=utf-8');
        return rows;
      },
    }),
    route({
      method: 'GET',
      path: '/qualifications/courses/{wikiid}/levels',
      auth: 'author',
      summary: 'The levels a course gives: completing a stage or the course → a level in a skill',
      description: `${courseLevelsNote} Authors and Admins.`,
      params: idParams('wikiid'),
      response: courseLevelsSchema,
      handler: ({ params }) => courseLevels.getCourseLevels(params.wikiid),
    }),
    route({
      method: 'PUT',
      path: '/qualifications/courses/{wikiid}/levels',
      auth: 'author',
      summary: 'Set the levels a course gives (the whole list)',
      description: `${courseLevelsNote} Unknown stages or skills are 422. Authors and Admins; audited on the course.`,
      params: idParams('wikiid'),
      body: courseLevelsBody,
      example: { grants: [{ course_stageid: 5, skillid: 3, level: 3 }] },
      response: courseLevelsSchema,
      handler: ({ caller, params, body }) => courseLevels.putCourseLevels(caller, params.wikiid, body),
    }),
    route({
      method: 'GET',
      path: '/qualifications/forecast',
      auth: 'user',
      summary: 'Levels that have lapsed and that lapse within 30, 60 and 90 days',
      description: 'The same readers and filters as the matrix (`teamid`, `skillid`); the windows nest.',
      query: forecastQuery,
      response: z.object({
        date: z.number(),
        expired: z.array(levelSchema),
        within_30_days: z.array(levelSchema),
        within_60_days: z.array(levelSchema),
        within_90_days: z.array(levelSchema),
      }),
      handler: ({ caller, query }) => qualifications.forecast(caller, query),
    }),
    route({
      method: 'GET',
      path: '/qualifications/settings',
      auth: 'user',
      summary: "The site's qualification settings: the gate on work, acknowledgements, level names",
      response: siteSettingsSchema,
      handler: () => qualifications.getSiteSettings(),
    }),
    route({
      method: 'PUT',
      path: '/qualifications/settings',
      auth: 'admin',
      summary: "Change the site's qualification settings (fields left out stay; null: the default)",
      description:
        '`gate_mode` (`off`, `warn`, `block`) and `min_level` apply to guides without their own; ' +
        '`acknowledgement_strictness` and `acknowledgement_due_days` to documents without their own; ' +
        '`level_names`: five names for levels 0-4. Audited.',
      body: siteSettingsBody,
      example: { gate_mode: 'warn', min_level: 3, acknowledgement_due_days: 14 },
      response: siteSettingsSchema,
      handler: ({ caller, body }) => qualifications.putSiteSettings(caller, body),
    }),
    route({
      method: 'GET',
      path: '/qualifications/gating/guides/{guideid}',
      auth: 'user',
      summary: "A guide's own gate: mode and minimum level (null: the site's)",
      params: idParams('guideid'),
      response: gatingSchema,
      handler: ({ caller, params }) => qualifications.getGuideGating(caller, params.guideid),
    }),
    route({
      method: 'PUT',
      path: '/qualifications/gating/guides/{guideid}',
      auth: 'user',
      summary: "Set a guide's gate on work: `block` refuses unqualified operators, `warn` flags their entries",
      description: 'Whoever may change the guide. Audited on the guide.',
      params: idParams('guideid'),
      body: guideGatingBody,
      example: { gate_mode: 'block', min_level: 3 },
      response: gatingSchema,
      handler: ({ caller, params, body }) => qualifications.putGuideGating(caller, params.guideid, body),
    }),
  ],
});
