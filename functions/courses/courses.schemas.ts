/**
 * Request schemas of the course routes, shared by courses.routes.ts (validation, OpenAPI) and
 * courses.service.ts (its input types are their z.output).
 */
import * as z from 'zod/mini';
import { timestamp } from '../../shared/http/schemas.ts';
import { queryFlag, queryInt } from '../../shared/http/query.ts';
import { direction, enumQuery, pageNumber, pageSize, pageWithinMaxOffset } from '../../shared/http/page-query.ts';
import { COURSE_ORDERS } from '../../shared/db/entities/course.ts';
import { MAX_CONTENTS_LENGTH } from '../../shared/domain/wiki-namespaces.ts';

/** Each stage may add an assessment and a module usage item to the course's transaction (limit 100). */
export const MAX_STAGES = 25;

const id = z.int().check(z.positive());

/** `guide`, `wiki` or `external_training_module`, any case (some clients send GUIDE). */
const doctype = z.pipe(
  z.string(),
  z.pipe(
    z.transform((value: string) => value.toLowerCase()),
    z.enum(['guide', 'wiki', 'external_training_module']),
  ),
);

const stage = z.object({
  course_stageid: z.optional(id),
  doctype,
  docid: id,
  strictness: z.optional(z.nullable(z.enum(['major', 'minor']))),
  frequency_quantity: z.optional(z.nullable(z.int().check(z.positive(), z.maximum(1000)))),
  frequency_unit: z.optional(z.nullable(z.enum(['day', 'week', 'month', 'year']))),
  assessment: z.optional(z.nullable(z.object({ teamid: id }))),
});

const courseFields = {
  title: z.string().check(z.maxLength(500)),
  contents: z.string().check(z.maxLength(MAX_CONTENTS_LENGTH)),
  stages: z.optional(z.array(stage).check(z.maxLength(MAX_STAGES))),
  publish_date: z.optional(timestamp),
  enabled: z.optional(z.boolean()),
  langid: z.optional(z.string()),
};

export const courseCreateBody = z.object(courseFields);

export const coursePatchBody = z.object({
  title: z.optional(courseFields.title),
  contents: z.optional(courseFields.contents),
  stages: courseFields.stages,
  publish_date: courseFields.publish_date,
  enabled: courseFields.enabled,
});

export const courseListQuery = z
  .object({
    page: pageNumber,
    pageSize: pageSize(30),
    direction,
    orderby: enumQuery(COURSE_ORDERS, 'title'),
    query: z.optional(z.string().check(z.maxLength(200))),
    disabledOkay: queryFlag,
    userid: queryInt,
  })
  .check(pageWithinMaxOffset('pageSize'));

export type StageInput = z.output<typeof stage>;
export type CourseInput = z.output<typeof courseCreateBody>;
export type CoursePatch = z.output<typeof coursePatchBody>;
export type CourseListQuery = z.output<typeof courseListQuery>;
