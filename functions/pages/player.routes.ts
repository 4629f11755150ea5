/**
 * The module player (issue 37, decision 306): the page at a course's module link
 * (`/ExternalTrainingModule/{id}`), the commits its script keeps with the learner's session, and
 * the files it loads (its script and styles, and scorm-again for the runtime host on the content
 * origin). The routes' handlers, with the attempts' logic and SCORM sequencing, are in
 * player.pages.ts, evaluated on a player route's first call (decision 355).
 */
import * as z from 'zod/mini';
import { embeddedScormRuntime, embeddedScript } from '../../shared/http/embedded.ts';
import { lazyService } from '../../shared/http/lazy-service.ts';
import { rawReply, route, type RouteDef } from '../../shared/http/route.ts';
import { commitInputSchema } from '../../shared/training/scorm-commit-input.ts';
import { moduleAttemptSchema } from '../../shared/views/module-attempt-views.ts';
import { PLAYER_SCRIPT, PLAYER_STYLES } from './player/player-assets.ts';
import type * as PlayerPages from './player.pages.ts';

const pages = lazyService<typeof PlayerPages>(() => import('./player.pages.ts'));
/** scorm-again for the runtime host on the content origin. */
const runtimeScript = embeddedScript(embeddedScormRuntime);

const idText = z.string().check(z.regex(/^[1-9]\d{0,14}$/));
/** A commit's CMI data: 2004's suspend_data alone may be 64,000 characters, interactions add more. */
const MAX_COMMIT_CHARACTERS = 1_000_000;

/** A commit's answer: the attempt as kept. */
const RESPONSE_EXAMPLE = {
  moduleid: 12,
  userid: 42,
  attempt: 1,
  importid: 31,
  standard: 'scorm12',
  version: 4,
  completion_status: 'completed',
  success_status: 'passed',
  score_raw: 86,
  score_scaled: null,
  total_time: 754.5,
  satisfied: true,
  satisfied_date: 1796000300,
  created_date: 1796000000,
  modified_date: 1796000300,
  scos: [
    {
      identifier: 'intro',
      completion_status: 'completed',
      success_status: 'passed',
      score_raw: 86,
      score_scaled: null,
      total_time: 754.5,
      exit: '',
      terminated: true,
      satisfied: true,
    },
  ],
};

function staticFile(body: string, type: string) {
  return rawReply(200, body, type, { 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' });
}

export const playerRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/ExternalTrainingModule/{id}',
    site: true,
    page: true,
    auth: 'public',
    summary: "A module's player: its SCOs, the chosen one (`sco`) running on the content origin, progress kept",
    params: z.object({ id: idText }),
    query: z.object({ sco: z.optional(z.string().check(z.maxLength(255))) }),
    queryExample: { sco: 'intro' },
    handler: ({ caller, params, query, headers }) => pages.playerPage(caller, Number(params.id), query.sco, headers),
  }),
  route({
    method: 'POST',
    path: '/ExternalTrainingModule/{id}/commit',
    site: true,
    page: true,
    form: true,
    auth: 'user',
    summary: "The player page's commit of one SCO's CMI data (the runtime's Initialize, Commit, Terminate)",
    description:
      'A form POST of the player page with its CSRF token: `attempt` and `data`, the JSON of the commit ' +
      'route of the API (`{version, sco, cmi, initialize?, terminate?}`), kept by the same rules (decision 271).',
    params: z.object({ id: idText }),
    body: z.object({
      csrf: z.string(),
      attempt: idText,
      data: z.string().check(z.maxLength(MAX_COMMIT_CHARACTERS)),
    }),
    example: {
      csrf: '5d41402abc4b2a76b9719d911017c592ae9f1e0c8a6e6d2b7c4f3e2a1b0c9d8e',
      attempt: '1',
      data: '{"version":1,"sco":"intro","cmi":{"cmi.core.lesson_status":"incomplete"}}',
    },
    response: moduleAttemptSchema,
    responseExample: RESPONSE_EXAMPLE,
    handler: ({ caller, params, body }) => pages.pageCommit(caller, Number(params.id), Number(body.attempt), body.data),
  }),
  route({
    method: 'POST',
    path: '/ExternalTrainingModule/{id}/attempts/{attemptid}/runtime_commit',
    site: true,
    auth: 'public',
    openOnPrivateSite: true,
    selfAuthenticated: true,
    summary: "The SCORM runtime's own synchronous commit, authenticated by its launch's capability",
    description:
      'What the runtime host on the content origin calls for Initialize, Commit and Terminate, so the SCO learns ' +
      'at once whether its data was kept (decision 326). `Authorization: ScormCommit <capability>`: the ' +
      "capability the player page issued at launch for this learner, module and attempt (4 hours); another's, a " +
      'changed or an expired one is 401; a browser request from another origin than the content origin 403. ' +
      "Body and answers as the API's `POST /external_training_modules/{id}/attempts/{attemptid}/commit`, for " +
      'the learner the capability names (409 stale version, 422 limits or `terminated`).',
    params: z.object({ id: idText, attemptid: idText }),
    authorize: ({ params, headers }) =>
      pages.authorizeRuntimeCommit(Number(params.id), Number(params.attemptid), headers),
    body: commitInputSchema,
    example: { version: 1, sco: 'intro', terminate: true, cmi: { 'cmi.core.lesson_status': 'completed' } },
    response: moduleAttemptSchema,
    responseExample: RESPONSE_EXAMPLE,
    handler: ({ params, body, headers }) =>
      pages.runtimeCommit(Number(params.id), Number(params.attemptid), headers, body),
  }),
  route({
    method: 'GET',
    path: '/player/player.js',
    site: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary: "The player page's script: frames the runtime host and keeps its commits",
    handler: async () => staticFile(PLAYER_SCRIPT, 'text/javascript; charset=utf-8'),
  }),
  route({
    method: 'GET',
    path: '/player/player.css',
    site: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary: "The player page's styles",
    handler: async () => staticFile(PLAYER_STYLES, 'text/css; charset=utf-8'),
  }),
  route({
    method: 'GET',
    path: '/player/scorm-again.js',
    site: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary: 'The SCORM runtime (scorm-again, from its npm package) the runtime host on the content origin loads',
    handler: async ({ headers }) => runtimeScript(headers['accept-encoding']),
  }),
];
