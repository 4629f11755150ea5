/**
 * Request schemas of the guides group that its services take as input (`z.output` of these):
 * the routes declare them, the services type their input from them, so the two cannot drift
 * and a service never imports the routes file.
 */
import * as z from 'zod/mini';
import { boundedNumber, orderQuery } from '../../shared/http/schemas.ts';
import { pagination, queryFlag, queryInt } from '../../shared/http/query.ts';
import { BULLETS, DIFFICULTIES, MAX_LINES_PER_STEP } from '../../shared/domain/guide-rules.ts';

const id = z.int().check(z.positive());
const text = (max: number) => z.string().check(z.maxLength(max));

/** Comma-separated ids in a query string: "1,2,3". */
export const idList = z.optional(
  z.pipe(
    z.string().check(z.regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, 'must be comma-separated integer ids')),
    z.transform((value: string) => value.split(',').map((part) => Number.parseInt(part.trim(), 10))),
  ),
);

export const guideType = z.string().check(z.minLength(1), z.maxLength(50));
const category = z.string().check(z.minLength(1), z.maxLength(255));

/** GET /guides: paging, order, and the filters. */
export const guideListQuery = z.object({
  ...pagination,
  order: orderQuery,
  filter: z.optional(guideType),
  guideids: idList,
  includePrivate: queryFlag,
  modifiedSince: queryInt,
});

/** A part or tool as written. */
export const guideItemInput = z.object({
  text: z.string().check(z.minLength(1), z.maxLength(255)),
  notes: z.optional(z.nullable(text(1000))),
  type: z.optional(text(50)),
  quantity: z.optional(boundedNumber({ min: 0 })),
  url: z.optional(z.nullable(text(2000))),
  thumbnail: z.optional(z.nullable(text(2000))),
  isoptional: z.optional(z.boolean()),
  featured: z.optional(z.boolean()),
});

const guideFields = {
  subject: z.optional(text(255)),
  title: z.optional(z.string().check(z.trim(), z.maxLength(255))),
  summary: z.optional(text(254)),
  introduction: z.optional(text(50000)),
  conclusion: z.optional(text(50000)),
  public: z.optional(z.boolean()),
  difficulty: z.optional(z.nullable(z.enum(DIFFICULTIES))),
  time_required_min: z.optional(z.int().check(z.minimum(0))),
  time_required_max: z.optional(z.int().check(z.minimum(0))),
  parts: z.optional(z.array(guideItemInput).check(z.maxLength(200))),
  tools: z.optional(z.array(guideItemInput).check(z.maxLength(200))),
  documents: z.optional(z.array(id).check(z.maxLength(100))),
  prerequisites: z.optional(z.array(id).check(z.maxLength(20))),
  flags: z.optional(z.array(text(100))),
  langid: z.optional(text(10)),
  /** Written as an id (like step media), read as the Image object. */
  image: z.optional(z.nullable(id)),
};

export const createGuideBody = z.object({ category, type: guideType, ...guideFields });
export const patchGuideBody = z.object({ category: z.optional(category), type: z.optional(guideType), ...guideFields });

const line = z.object({
  text: text(4000),
  level: z.int(),
  bullet: z.optional(z.enum(BULLETS)),
  bullet_styleid: z.optional(z.int().check(z.minimum(1), z.maximum(BULLETS.length))),
  // The apps send `lineid: 0` (Android) or null for a new line: both mean "no lineid" (decision 196).
  lineid: z.optional(
    z.pipe(
      z.nullable(z.int().check(z.nonnegative())),
      z.transform((value: number | null) => (value ? value : undefined)),
    ),
  ),
});
export const stepLines = z.array(line).check(z.minLength(1), z.maxLength(MAX_LINES_PER_STEP));

/** Step media as written (§2.6): image ids, or one video (`object` or `video`) or embed id. */
export const stepMediaInput = z.nullable(
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('image'), data: z.array(id).check(z.maxLength(20)) }),
    z.object({ type: z.enum(['object', 'video']), data: id }),
    z.object({ type: z.literal('embed'), data: id }),
  ]),
);

const stepFields = { title: z.optional(text(255)), media: z.optional(stepMediaInput) };
export const addStepBody = z.object({ orderby: z.int(), lines: stepLines, ...stepFields });
export const patchStepBody = z.object({ lines: z.optional(stepLines), ...stepFields });

export type GuideListQuery = z.output<typeof guideListQuery>;
export type CreateGuideInput = z.output<typeof createGuideBody>;
/** What a guide edit may change (also what create applies after its required fields). */
export type GuideInput = z.output<typeof patchGuideBody>;
export type GuideItemInput = z.output<typeof guideItemInput>;
export type StepMediaInput = z.output<typeof stepMediaInput>;
export type AddStepInput = z.output<typeof addStepBody>;
export type StepInput = z.output<typeof patchStepBody>;
export type LinesInput = z.output<typeof stepLines>;
