/**
 * The external-courses API (issue 28 §3): only a site API token with the `external-courses`
 * scope (decision 227). Dozuki documents the purpose, not the answers: their shapes are
 * inferred (docs/wire-fidelity.md, decision 229).
 */
import { defineGroup, route } from '../../shared/http/route.ts';
import { externalHealthSchema, stageCompletionHistorySchema } from '../../shared/views/external-course-views.ts';
import { historyQuery } from './external-courses.schemas.ts';
import * as externalCourses from './external-courses.service.ts';

const EXTERNAL = { auth: 'user', apiScope: 'external-courses' } as const;

export const externalCoursesGroup = defineGroup({
  name: 'external-courses',
  // readwrite: authentication records the token's last use (shared/http/api-token-auth.ts).
  access: { table: 'readwrite' },
  routes: [
    route({
      ...EXTERNAL,
      method: 'GET',
      path: '/courses/external/health',
      summary: 'Whether the external-courses API answers, for the connector to check its token',
      response: externalHealthSchema,
      extensions: { 'x-inferred': true },
      handler: async () => externalCourses.health(),
    }),
    route({
      ...EXTERNAL,
      method: 'GET',
      path: '/courses/external/course_stage_completions/history',
      summary:
        'Stage completion events (completed, invalidated), oldest first, paged by offset/limit (up to 1,000), ' +
        'optionally from `since` to `until` (epoch seconds); disabled users and removed stages included',
      query: historyQuery,
      queryExample: { since: '1764000000', limit: '100', offset: '0' },
      response: stageCompletionHistorySchema,
      extensions: { 'x-inferred': true },
      handler: ({ query }) => externalCourses.history(query),
    }),
  ],
});
