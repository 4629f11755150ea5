/** Request schemas of the qualification use cases (docs/competency.md). */
import * as z from 'zod/mini';
import { pagination } from '../../shared/http/query.ts';
import { GATE_MODES, MAX_LEVEL, MIN_LEVEL } from '../../shared/domain/competency.ts';

const id = z.int().check(z.positive());
const optionalId = z.optional(
  z.pipe(
    z.string().check(z.regex(/^\d{1,15}$/)),
    z.pipe(
      z.transform((value: string) => Number.parseInt(value, 10)),
      z.number().check(z.minimum(1)),
    ),
  ),
);
const levelNumber = z.int().check(z.minimum(MIN_LEVEL), z.maximum(MAX_LEVEL));

/** Skills hold at most this many guides (one transaction writes them with the skill). */
export const MAX_SKILL_GUIDES = 90;

export const skillBody = z.object({
  name: z.string().check(z.minLength(1), z.maxLength(200)),
  description: z.optional(z.string().check(z.maxLength(5000))),
  guideids: z.array(id).check(z.minLength(1), z.maxLength(MAX_SKILL_GUIDES)),
  recertification_days: z.optional(z.nullable(z.int().check(z.minimum(1), z.maximum(36500)))),
  acknowledgement_strictness: z.optional(z.enum(['major', 'minor'])),
});
export type SkillInput = z.output<typeof skillBody>;

export const skillPatchBody = z.partial(skillBody);
export type SkillPatchInput = z.output<typeof skillPatchBody>;

export const setLevelBody = z.object({
  level: levelNumber,
  /**
   * The trainer's password (left out by a trainer who signs through their identity provider, decision 237):
   * the level is set by their signature.
   */
  password: z.optional(z.string().check(z.minLength(1))),
});
export type SetLevelInput = z.output<typeof setLevelBody>;

export const matrixQuery = z.object({
  teamid: optionalId,
  skillid: optionalId,
  format: z.optional(z.enum(['json', 'csv'])),
  ...pagination,
});
export type MatrixQuery = z.output<typeof matrixQuery>;

export const forecastQuery = z.object({ teamid: optionalId, skillid: optionalId });
export type ForecastQuery = z.output<typeof forecastQuery>;

export const siteSettingsBody = z.object({
  gate_mode: z.optional(z.nullable(z.enum(GATE_MODES))),
  min_level: z.optional(z.nullable(levelNumber)),
  acknowledgement_strictness: z.optional(z.nullable(z.enum(['major', 'minor']))),
  acknowledgement_due_days: z.optional(z.nullable(z.int().check(z.minimum(1), z.maximum(3650)))),
  level_names: z.optional(
    z.nullable(z.array(z.string().check(z.minLength(1), z.maxLength(100))).check(z.length(MAX_LEVEL + 1))),
  ),
});
export type SiteSettingsInput = z.output<typeof siteSettingsBody>;

export const guideGatingBody = z.object({
  gate_mode: z.optional(z.nullable(z.enum(GATE_MODES))),
  min_level: z.optional(z.nullable(levelNumber)),
});
export type GuideGatingInput = z.output<typeof guideGatingBody>;

/** A course has at most this many mappings (they are read on every refresh of its rows). */
export const MAX_LEVEL_GRANTS = 50;

export const courseLevelsBody = z.object({
  grants: z
    .array(
      z.object({
        /** The stage whose completion gives the level; null: completing the whole course. */
        course_stageid: z.nullable(id),
        skillid: id,
        level: z.int().check(z.minimum(1), z.maximum(MAX_LEVEL)),
      }),
    )
    .check(z.maxLength(MAX_LEVEL_GRANTS)),
});
export type CourseLevelsInput = z.output<typeof courseLevelsBody>;
