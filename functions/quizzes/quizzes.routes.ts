/**
 * Quizzes (v1 and v2) and quiz sessions, except import (functions/quiz-import, the only
 * function that bundles survey-core). Literal paths (/quizzes/categories, /quizzes/sessions)
 * win over /quizzes/{quizid}. docs/quizzes.md describes the shapes.
 */
import { lazyService } from '../../shared/http/lazy-service.ts';
import * as z from 'zod/mini';
import { defineGroup, reply, route } from '../../shared/http/route.ts';
import { idParams } from '../../shared/http/schemas.ts';
import { revisionQuery } from '../../shared/http/revision.ts';
import type * as QuizzesService from './quizzes.service.ts';
import type * as SessionsService from './sessions.service.ts';
import {
  attachGuideBody,
  attachWikiBody,
  invalidateUserBody,
  quizIdBody,
  quizIdsBody,
  quizListQuery,
  quizSearchBody,
  sessionBody,
  sessionIdsBody,
  sessionListQuery,
} from './quizzes.schemas.ts';
import {
  quizAttachmentSchema,
  quizDefinitionSchema,
  quizListEntrySchema,
  quizSessionSchema,
  submissionSchema,
  submitResultSchema,
} from '../../shared/views/quiz-views.ts';

const quizzes = lazyService<typeof QuizzesService>(() => import('./quizzes.service.ts'));
const sessions = lazyService<typeof SessionsService>(() => import('./sessions.service.ts'));

const LIST_PARAMETERS =
  'Query parameters: `offset` (number to skip, default 0), `limit` (1..200, default 20; larger values are clamped), ' +
  '`direction` (`ASC` or `DESC`, default `DESC`), `orderby` (one of guideid, category, quiz_title, ' +
  'guide_title, release_date, ' +
  'sessions_submitted; default release_date), `category` (exact category name, case-insensitive) and ' +
  '`search` (text contained in ' +
  'quiz_title or guide_title, case-insensitive). release_date is when the quiz was last attached to a document ' +
  '(`quiz_last_released`); quizzes never attached sort as oldest.';

export const quizzesGroup = defineGroup({
  name: 'quizzes',
  // No media bucket: the full guide a 409 answers shows its images at /igi/ paths (decisions 197, 312).
  access: { table: 'readwrite', conditionChecks: true },
  routes: [
    route({
      method: 'GET',
      path: '/quizzes',
      auth: 'author',
      summary: 'Quizzes v2: one page of quiz list entries, filtered, searched and sorted',
      description: LIST_PARAMETERS,
      query: quizListQuery,
      response: z.array(quizListEntrySchema),
      handler: async ({ query }) => (await quizzes.listQuizzes({ ...query, sort: query.orderby })).entries,
    }),
    route({
      method: 'GET',
      path: '/quizzes/categories',
      auth: 'author',
      summary: 'Quizzes v2: every quiz category, also those of disabled or deleted quizzes',
      response: z.array(z.object({ name: z.string() })),
      handler: () => quizzes.categories(),
    }),
    route({
      method: 'POST',
      path: '/quizzes/getQuizzes',
      auth: 'author',
      summary: 'Quizzes: a page of quizzes, searched, filtered and sorted by criteria in the body',
      description:
        'Body: `limit` (1..200, default 20), `offset` (0..100000, default 0), `orderby`, `direction`, ' +
        '`category`, `search` as for GET /quizzes, ' +
        'plus `enabled` (boolean) and `guideid` filters. Answers `{quizzes: [quiz list entries], total, ' +
        'limit, offset}`.',
      body: quizSearchBody,
      example: { limit: 20, offset: 0, orderby: 'quiz_title', direction: 'ASC', search: 'lockout' },
      response: z.object({ quizzes: z.array(quizListEntrySchema), total: z.int(), limit: z.int(), offset: z.int() }),
      handler: async ({ body }) => {
        const { total, entries } = await quizzes.listQuizzes({ ...body, sort: body.orderby });
        return { quizzes: entries, total, limit: body.limit, offset: body.offset };
      },
    }),
    route({
      method: 'GET',
      path: '/quizzes/{quizid}',
      auth: 'user',
      summary: 'The quiz as its SurveyJS definition (questionOrder, never the deprecated questionsOrder)',
      description:
        'The SurveyJS JSON as imported (survey-core loads it as it is) with the quiz fields alongside: ' +
        'quizid, quiz_revisionid, ' +
        'quiz_title, category, pass_threshold, max_attempts, enabled, guideid. The answer key ' +
        '(`correctAnswer`) is shown to ' +
        'Authors and Admins only; a disabled quiz only to them.',
      params: idParams('quizid'),
      response: quizDefinitionSchema,
      handler: ({ caller, params }) => quizzes.readQuiz(caller, params.quizid),
    }),
    route({
      method: 'POST',
      path: '/quizzes/delete',
      auth: 'author',
      summary: 'Deletes each quiz (and its revisions) given; answers the deleted and the invalid ids',
      body: quizIdsBody,
      example: { quizids: [12, 13] },
      response: z.object({ deleted: z.array(z.int()), invalid: z.array(z.int()) }),
      handler: ({ body }) => quizzes.deleteQuizzes(body.quizids),
    }),
    route({
      method: 'POST',
      path: '/quizzes/attach/guide',
      auth: 'author',
      summary:
        'Attaches a quiz to a guide: a new guide revision and a guide quiz revision (new guide_revisionid, ' +
        'current quiz_revisionid)',
      description:
        "`?revisionid=` (the guide's current revisionid) is required; a stale one answers 409 with the current guide.",
      query: revisionQuery,
      revision: 'required',
      queryExample: { revisionid: '78' },
      body: attachGuideBody,
      example: { quizid: 12, guideid: 34 },
      status: 201,
      response: quizAttachmentSchema,
      handler: ({ caller, query, body }) => quizzes.attachToGuide(caller, body, query.revisionid),
    }),
    route({
      method: 'POST',
      path: '/quizzes/attach/wiki',
      auth: 'author',
      summary:
        'Attaches a quiz to a wiki page (e.g. a course): a wiki quiz revision (current wiki_revisionid, ' +
        'current quiz_revisionid)',
      body: attachWikiBody,
      example: { quizid: 12, wikiid: 56 },
      status: 201,
      response: quizAttachmentSchema,
      handler: ({ caller, body }) => quizzes.attachToWiki(caller, body),
    }),
    route({
      method: 'POST',
      path: '/quizzes/sessions/save',
      auth: 'user',
      personOnly: true,
      summary: "Creates the caller's session for the quiz (201) or updates its response_json (200)",
      description:
        '`response_json`: the SurveyJS response data, an object or JSON text of one. One open session per ' +
        'user and quiz.',
      body: sessionBody,
      example: { quizid: 12, response_json: { first_step: 'Notify' } },
      response: quizSessionSchema,
      handler: async ({ caller, body }) => {
        const { created, body: session } = await sessions.save(caller, body);
        return reply(created ? 201 : 200, session);
      },
    }),
    route({
      method: 'POST',
      path: '/quizzes/sessions/submit',
      auth: 'user',
      personOnly: true,
      summary: "Submits the caller's session for the quiz: graded, counted against the attempt limit",
      description:
        'Stores `response_json` when given (opening a session if none is open) and grades it with each ' +
        "question's correctAnswer. " +
        "A failed attempt that reaches the quiz's max_attempts locks the quiz for the user (403 afterwards).",
      body: sessionBody,
      example: { quizid: 12, response_json: { first_step: 'Notify', verify: true } },
      response: submitResultSchema,
      handler: ({ caller, body }) => sessions.submit(caller, body),
    }),
    route({
      method: 'POST',
      path: '/quizzes/sessions/cancel',
      auth: 'user',
      personOnly: true,
      summary: "Cancels the caller's open session for the quiz (cancelled, end_date); a plain ok when there is none",
      body: quizIdBody,
      example: { quizid: 12 },
      response: z.object({ message: z.literal('ok'), quizSession: z.nullable(quizSessionSchema) }),
      handler: ({ caller, body }) => sessions.cancel(caller, body.quizid),
    }),
    route({
      method: 'GET',
      path: '/quizzes/submissions/{sessionid}',
      auth: 'user',
      summary: 'The graded results of a submitted session (its user, their Team Owners and Admins)',
      params: idParams('sessionid'),
      response: submissionSchema,
      handler: ({ caller, params }) => sessions.submission(caller, params.sessionid),
    }),
    route({
      method: 'GET',
      path: '/quizzes/sessions',
      auth: 'user',
      summary:
        "Sessions the caller may see, newest first: Admins all, Team Owners theirs and their members', users their own",
      description:
        "`query`: keeps sessions of quizzes whose title, guide title or attached documents' titles (e.g. a " +
        "course) contain it. `client_guid`: the caller's submission made under it (at most one). " +
        'Answers `{quizSessions: [...]}`.',
      query: sessionListQuery,
      response: z.object({ quizSessions: z.array(quizSessionSchema) }),
      handler: ({ caller, query }) => sessions.listSessions(caller, query),
    }),
    route({
      method: 'POST',
      path: '/quizzes/sessions/bulkCancel',
      auth: 'user',
      summary:
        'Admins and Team Owners: cancels open sessions; answers the cancelled quiz_sessionids and the invalid ids',
      body: sessionIdsBody,
      example: { quiz_sessionids: [101, 102] },
      response: z.object({ cancelled: z.array(z.int()), invalid: z.array(z.int()) }),
      handler: ({ caller, body }) => sessions.bulkCancel(caller, body.quiz_sessionids),
    }),
    route({
      method: 'PATCH',
      path: '/quizzes/sessions/userInvalidateAll/{userid}',
      auth: 'admin',
      summary: "Force-invalidates a user's quiz results (all, or those of the documents given); audited",
      description:
        'Body (optional): `documents: [{doctype, docid}]` limits it to the quizzes attached to those ' +
        "documents. The course stages on the quizzes' documents are recomputed.",
      params: idParams('userid'),
      body: invalidateUserBody,
      example: {},
      response: z.object({
        userid: z.int(),
        quizids: z.array(z.int()),
        quiz_sessionids: z.array(z.int()),
        documents: z.array(z.object({ doctype: z.enum(['guide', 'wiki']), docid: z.int() })),
      }),
      handler: ({ caller, auth, params, body }) =>
        sessions.invalidateUser(caller, params.userid, body, auth.impersonatorUserid),
    }),
  ],
});
