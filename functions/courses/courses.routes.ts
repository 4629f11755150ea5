/**
 * Courses: COURSE-namespace wiki pages with ordered stages (wire notes §2.13, §3.17).
 * POST answers 201 with the course (wikiid, revisionid); GET /courses answers
 * {"courses": [...]} paged by page/pageSize; PATCH takes ?revisionid= like every wiki write.
 */
import { lazyService } from '../../shared/http/lazy-service.ts';
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { idParams } from '../../shared/http/schemas.ts';
import { optionalRevisionQuery } from '../../shared/http/revision.ts';
import type * as CoursesService from './courses.service.ts';
import { courseCreateBody, courseListQuery, coursePatchBody } from './courses.schemas.ts';
import { courseSchema } from '../../shared/views/course-views.ts';

const courses = lazyService<typeof CoursesService>(() => import('./courses.service.ts'));

const stageDescription =
  'Stages: `{doctype: guide|wiki|external_training_module, docid, strictness?: major|minor|null, ' +
  'frequency_quantity?, frequency_unit?: day|week|month|year, assessment?: {teamid} | null}` in course ' +
  'order (orderby from 0). ' +
  'A stage with an assessment completes only after a signoff by a member of that team is acknowledged. Name ' +
  "`course_stageid` to keep a stage (and its trainees' progress) when editing.";

export const coursesGroup = defineGroup({
  name: 'courses',
  access: { table: 'readwrite', conditionChecks: true },
  routes: [
    route({
      method: 'POST',
      path: '/courses',
      auth: 'author',
      summary: 'Create a course (201 with wikiid and revisionid)',
      description: stageDescription,
      status: 201,
      body: courseCreateBody,
      example: { title: 'Nozzle maintenance', contents: 'How we keep printers running.', stages: [] },
      response: courseSchema,
      handler: ({ caller, body }) => courses.create(caller, body),
    }),
    route({
      method: 'GET',
      path: '/courses',
      auth: 'user',
      summary: 'Courses in pages: {"courses": [...]}',
      description:
        '`page` (1-based), `pageSize` (default 30, at most 200), `direction` ASC|DESC, `orderby` ' +
        'title|status|stages_count|modified_date|assignee_count|completion_percentage, ' +
        '`query` (title words), `disabledOkay` (Authors and Admins: include disabled courses), `userid` ' +
        '(only courses assigned to that user: the user, their managers and Admins).',
      query: courseListQuery,
      response: z.object({ courses: z.array(courseSchema) }),
      handler: ({ caller, query }) => courses.list(caller, query),
    }),
    route({
      method: 'GET',
      path: '/courses/{wikiid}',
      auth: 'user',
      summary: "A course with its stages (and the caller's stage statuses when it is assigned to them)",
      params: idParams('wikiid'),
      response: courseSchema,
      handler: ({ caller, params }) => courses.get(caller, params.wikiid),
    }),
    route({
      method: 'PATCH',
      path: '/courses/{wikiid}',
      auth: 'author',
      summary: 'Change a course (new revision); ?revisionid= is required, 409 with the current course when stale',
      description: `${stageDescription} Giving \`stages\` replaces the whole list.`,
      params: idParams('wikiid'),
      query: optionalRevisionQuery,
      revision: 'required',
      body: coursePatchBody,
      example: { contents: 'Updated description.' },
      response: courseSchema,
      handler: ({ caller, params, query, body }) => courses.patch(caller, params.wikiid, query.revisionid, body),
    }),
    route({
      method: 'DELETE',
      path: '/courses/{wikiid}',
      auth: 'author',
      summary: 'Delete a course (204); its active assignments are cancelled first',
      description: '`revisionid` is checked when given (409 with the current course when stale).',
      status: 204,
      params: idParams('wikiid'),
      query: optionalRevisionQuery,
      revision: 'when-given',
      handler: async ({ caller, params, query }) => {
        await courses.remove(caller, params.wikiid, query.revisionid);
      },
    }),
  ],
});
