/**
 * The site's own LRS at <site>/xapi/ (issue 38; docs/lrs.md; decisions 274-276): xAPI 1.0.3 and
 * 2.0 statements, documents, activities and agents, for clients holding an LRS credential
 * (HTTP Basic); and, under /api/2.0, the Admin routes that make and revoke those credentials.
 * The LRS routes are site routes (out of the OpenAPI document, decision 187) that authenticate
 * themselves (`selfAuthenticated`) and read their bodies as bytes (JSON, multipart/mixed, or the
 * alternate syntax's form).
 */
import { lazyService } from '../../shared/http/lazy-service.ts';
import * as z from 'zod/mini';
import { BadRequestError, ForbiddenError } from '../../shared/domain/errors.ts';
import { escapeHtml } from '../../shared/domain/wiki-syntax/escape.ts';
import { isIri, type JsonObject } from '../../shared/domain/xapi/statement-rules.ts';
import { checkActor } from '../../shared/domain/xapi/statement-rules.ts';
import { getActivityDefinition } from '../../shared/db/entities/xapi-statement.ts';
import { defineGroup, type HttpMethod, rawReply, reply, route, type RouteRequest } from '../../shared/http/route.ts';
import { createdLrsCredentialSchema, lrsCredentialSchema } from '../../shared/views/lrs-credential-views.ts';
import { type DocumentResource, handleDocument } from './documents.service.ts';
import { type AttachmentPart, attachmentParts } from './attachments.ts';
import type * as CredentialsService from './credentials.service.ts';
import type * as Cmi5Service from './cmi5.service.ts';
import { LAUNCH_DATA_STATE } from '../../shared/domain/xapi/cmi5-rules.ts';
import { cmi5LaunchSchema, cmi5RegistrationSchema } from '../../shared/views/cmi5-views.ts';
import {
  CONSISTENCY_WINDOW_MS,
  personOf,
  readAttachments,
  readStatements,
  storeStatements,
} from './statements.service.ts';
import {
  authenticateLrs,
  multipartBody,
  multipartBoundary,
  parseJson,
  parseMultipart,
  requireScope,
  versionHeaders,
  XAPI_VERSIONS,
  xapiEmpty,
  xapiErrorReply,
  xapiJson,
  xapiRequest,
  type XapiRequest,
  type LrsCaller,
} from './xapi-protocol.ts';
import {
  abandonStaleBody,
  cmi5LaunchBody,
  cmi5RegistrationParams,
  cmi5SessionParams,
  cmi5WaiveBody,
  createLrsCredentialBody,
  lrsCredentialParams,
} from './xapi.schemas.ts';

const credentials = lazyService<typeof CredentialsService>(() => import('./credentials.service.ts'));
const cmi5 = lazyService<typeof Cmi5Service>(() => import('./cmi5.service.ts'));

/** Every LRS route: a site path, authenticated by the handler with LRS credentials, bytes in. */
const LRS = {
  site: true,
  auth: 'public',
  openOnPrivateSite: true,
  selfAuthenticated: true,
  rawBody: true,
} as const;

function httpDate(iso: string | undefined): string {
  return new Date(iso ?? Date.now()).toUTCString();
}

/** The statements and their attachments, or only the statements (JSON). */
async function statementsReply(
  request: XapiRequest,
  acceptLanguage: string | undefined,
  caller: Awaited<ReturnType<typeof authenticateLrs>>,
) {
  const answer = await readStatements(caller, request.query, acceptLanguage);
  const headers = {
    'x-experience-api-consistent-through': new Date(Date.now() - CONSISTENCY_WINDOW_MS).toISOString(),
    'last-modified': httpDate(answer.lastModified),
  };
  if (!answer.withAttachments) return xapiJson(200, answer.body, request.version, headers);
  const boundary = `xapi-${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;
  const parts = [
    { headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(answer.body)) },
    ...(await readAttachments(answer.attachments ?? [])),
  ];
  return rawReply(200, multipartBody(parts, boundary), `multipart/mixed; boundary=${boundary}`, {
    ...versionHeaders(request.version),
    ...headers,
  });
}

/** The statements of a PUT or POST body: JSON, or the first part of a multipart/mixed one. */
function statementsBody(request: XapiRequest) {
  const boundary = multipartBoundary(request.headers['content-type']);
  if (!boundary) {
    const type = (request.headers['content-type'] ?? 'application/json').toLowerCase();
    if (!type.startsWith('application/json'))
      throw new BadRequestError('Content-Type: statements are sent as application/json or multipart/mixed');
    return { body: parseJson(request.body, 'statements'), parts: [] };
  }
  const [first, ...rest] = parseMultipart(request.body, boundary);
  if (!first || !(first.headers['content-type'] ?? '').toLowerCase().startsWith('application/json'))
    throw new BadRequestError('multipart/mixed: the first part must be the statements, application/json');
  return { body: parseJson(first.body, 'statements'), parts: attachmentParts(rest) };
}

/** A cmi5 AU's statements are held to the AU rules first (decision 310). */
const store = (caller: LrsCaller, body: unknown, parts: AttachmentPart[], version: string, statementId?: string) =>
  caller.cmi5
    ? cmi5.storeAuStatements(caller, body, parts, version, statementId)
    : storeStatements(caller, body, parts, version, statementId);

async function statements(route: RouteRequest, method: HttpMethod) {
  const request = xapiRequest(route, method);
  const caller = await authenticateLrs(request.headers);
  if (request.method === 'GET') {
    requireScope(caller, 'statements/read', false);
    return statementsReply(request, request.headers['accept-language'], caller);
  }
  requireScope(caller, 'statements/write', true);
  if (request.method === 'PUT') {
    const statementId = request.query.get('statementId');
    if (statementId === null) throw new BadRequestError('statementId: is required');
    for (const name of request.query.keys())
      if (name !== 'statementId') throw new BadRequestError(`${name}: is not a parameter of PUT /xapi/statements`);
    const { body, parts } = statementsBody(request);
    await store(caller, body, parts, request.version, statementId);
    return xapiEmpty(204, request.version);
  }
  if (request.method === 'POST') {
    if ([...request.query.keys()].length > 0) throw new BadRequestError('POST /xapi/statements takes no parameters');
    const { body, parts } = statementsBody(request);
    const ids = await store(caller, body, parts, request.version);
    return xapiJson(200, ids, request.version);
  }
  throw new BadRequestError('DELETE: statements cannot be deleted');
}

async function documents(route: RouteRequest, method: HttpMethod, resource: DocumentResource) {
  const request = xapiRequest(route, method);
  const caller = await authenticateLrs(request.headers);
  requireScope(caller, resource === 'state' ? 'state' : 'profile', request.method !== 'GET');
  if (
    caller.cmi5 &&
    resource === 'state' &&
    request.method !== 'GET' &&
    request.query.get('stateId') === LAUNCH_DATA_STATE
  )
    throw new ForbiddenError(`${LAUNCH_DATA_STATE} is the LMS's: an AU reads it and never writes it`);
  const answer = await handleDocument(resource, request);
  if (answer.kind === 'none') return xapiEmpty(204, request.version);
  if (answer.kind === 'ids')
    return xapiJson(200, answer.ids, request.version, { 'last-modified': httpDate(answer.lastModified) });
  const { record } = answer;
  return rawReply(200, answer.content, record.content_type, {
    ...versionHeaders(request.version),
    etag: `"${record.etag}"`,
    'last-modified': httpDate(record.updated),
  });
}

async function activities(route: RouteRequest) {
  const request = xapiRequest(route, 'GET');
  const caller = await authenticateLrs(request.headers);
  requireScope(caller, 'activities', false);
  const activityId = request.query.get('activityId');
  if (activityId === null || !isIri(activityId)) throw new BadRequestError('activityId: an IRI is required');
  for (const name of request.query.keys())
    if (name !== 'activityId') throw new BadRequestError(`${name}: is not a parameter of GET /xapi/activities`);
  const definition = await getActivityDefinition(activityId);
  const activity: JsonObject = { objectType: 'Activity', id: activityId };
  if (definition !== undefined) activity.definition = definition as JsonObject;
  return xapiJson(200, activity, request.version);
}

async function agents(route: RouteRequest) {
  const request = xapiRequest(route, 'GET');
  const caller = await authenticateLrs(request.headers);
  requireScope(caller, 'agents', false);
  for (const name of request.query.keys())
    if (name !== 'agent') throw new BadRequestError(`${name}: is not a parameter of GET /xapi/agents`);
  const text = request.query.get('agent');
  if (text === null) throw new BadRequestError('agent: is required');
  let agent: unknown;
  try {
    agent = JSON.parse(text);
  } catch {
    throw new BadRequestError('agent: must be an Agent as JSON');
  }
  checkActor(agent, 'agent');
  const person = await personOf(agent as JsonObject);
  return xapiJson(200, person, request.version);
}

/**
 * The group's one page route (the player page's cmi5 launch) refuses as a plain page, not the
 * API's JSON: the learner's browser shows it. Nothing but the escaped message and a way back.
 */
function launchPageError(status: number, message: string) {
  const body =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>The unit cannot be launched</title>' +
    `</head><body><h1>The unit cannot be launched</h1><p>${escapeHtml(message)}</p>` +
    '<p><a href="/">Go to the start page</a></p></body></html>';
  return rawReply(status, body, 'text/html; charset=utf-8', {
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
    'x-content-type-options': 'nosniff',
  });
}

export const xapiGroup = defineGroup({
  name: 'xapi',
  access: {
    table: 'readwrite',
    batchWrite: true,
    // A satisfied cmi5 course completes its stage (shared/training/progress.ts).
    conditionChecks: true,
    mediaBucket: {
      read: ['xapi/attachments/', 'xapi/documents/'],
      write: ['xapi/attachments/', 'xapi/documents/'],
      delete: ['xapi/documents/'],
    },
    // A cmi5 launch URL carries a content token sealed with it (decision 346).
    contentSigningKey: true,
  },
  routeError: xapiErrorReply,
  pageError: launchPageError,
  // A batch of 100 statements writes ~700 index items before its commit: room for a slow moment,
  // below the 30 s after which a write starts again with a new stored time (decision 274).
  timeoutSeconds: 29,
  routes: [
    route({
      ...LRS,
      method: 'GET',
      path: '/xapi/about',
      summary: 'xAPI about: the versions this LRS speaks',
      handler: async (route) => {
        const request = xapiRequest(route, 'GET', true);
        return xapiJson(200, { version: [...XAPI_VERSIONS], extensions: {} }, request.version);
      },
    }),
    route({
      ...LRS,
      method: 'GET',
      path: '/xapi/statements',
      summary: 'xAPI statements: GET',
      handler: (request) => statements(request, 'GET'),
    }),
    route({
      ...LRS,
      method: 'PUT',
      path: '/xapi/statements',
      summary: 'xAPI statements: PUT',
      handler: (request) => statements(request, 'PUT'),
    }),
    route({
      ...LRS,
      method: 'POST',
      path: '/xapi/statements',
      summary: 'xAPI statements: POST',
      handler: (request) => statements(request, 'POST'),
    }),
    route({
      ...LRS,
      method: 'GET',
      path: '/xapi/activities/state',
      summary: 'xAPI activity state: GET',
      handler: (request) => documents(request, 'GET', 'state'),
    }),
    route({
      ...LRS,
      method: 'PUT',
      path: '/xapi/activities/state',
      summary: 'xAPI activity state: PUT',
      handler: (request) => documents(request, 'PUT', 'state'),
    }),
    route({
      ...LRS,
      method: 'POST',
      path: '/xapi/activities/state',
      summary: 'xAPI activity state: POST',
      handler: (request) => documents(request, 'POST', 'state'),
    }),
    route({
      ...LRS,
      method: 'DELETE',
      path: '/xapi/activities/state',
      summary: 'xAPI activity state: DELETE',
      handler: (request) => documents(request, 'DELETE', 'state'),
    }),
    route({
      ...LRS,
      method: 'GET',
      path: '/xapi/activities/profile',
      summary: 'xAPI activity profile: GET',
      handler: (request) => documents(request, 'GET', 'activityProfile'),
    }),
    route({
      ...LRS,
      method: 'PUT',
      path: '/xapi/activities/profile',
      summary: 'xAPI activity profile: PUT',
      handler: (request) => documents(request, 'PUT', 'activityProfile'),
    }),
    route({
      ...LRS,
      method: 'POST',
      path: '/xapi/activities/profile',
      summary: 'xAPI activity profile: POST',
      handler: (request) => documents(request, 'POST', 'activityProfile'),
    }),
    route({
      ...LRS,
      method: 'DELETE',
      path: '/xapi/activities/profile',
      summary: 'xAPI activity profile: DELETE',
      handler: (request) => documents(request, 'DELETE', 'activityProfile'),
    }),
    route({
      ...LRS,
      method: 'GET',
      path: '/xapi/agents/profile',
      summary: 'xAPI agent profile: GET',
      handler: (request) => documents(request, 'GET', 'agentProfile'),
    }),
    route({
      ...LRS,
      method: 'PUT',
      path: '/xapi/agents/profile',
      summary: 'xAPI agent profile: PUT',
      handler: (request) => documents(request, 'PUT', 'agentProfile'),
    }),
    route({
      ...LRS,
      method: 'POST',
      path: '/xapi/agents/profile',
      summary: 'xAPI agent profile: POST',
      handler: (request) => documents(request, 'POST', 'agentProfile'),
    }),
    route({
      ...LRS,
      method: 'DELETE',
      path: '/xapi/agents/profile',
      summary: 'xAPI agent profile: DELETE',
      handler: (request) => documents(request, 'DELETE', 'agentProfile'),
    }),
    route({
      ...LRS,
      method: 'GET',
      path: '/xapi/activities',
      summary: 'xAPI activities: the Activity object with the latest definition a statement gave it',
      handler: activities,
    }),
    route({
      ...LRS,
      method: 'GET',
      path: '/xapi/agents',
      summary: 'xAPI agents: the Person object of an agent',
      handler: agents,
    }),
    route({
      ...LRS,
      method: 'POST',
      path: '/xapi/cmi5/fetch',
      summary: "cmi5 fetch URL: the AU's auth-token, once; the cmi5 error JSON after that",
      handler: async (route) => {
        const answer = await cmi5.fetchToken(new URLSearchParams(route.rawQueryString).get('code'));
        return rawReply(200, JSON.stringify(answer), 'application/json');
      },
    }),
    route({
      method: 'POST',
      path: '/ExternalTrainingModule/{id}/cmi5',
      site: true,
      page: true,
      form: true,
      auth: 'user',
      summary: "The player page's launch of a cmi5 AU: 303 to the AU's launch URL (the learner's registration)",
      description:
        'A form POST of the player page with its CSRF token and the AU id: an assigned learner launches the AU ' +
        "in their registration of the module's current version, in Normal mode, with the player page as " +
        '`returnURL` (docs/lrs.md).',
      params: z.object({ id: z.string().check(z.regex(/^[1-9]\d{0,14}$/)) }),
      body: z.object({ csrf: z.string(), au: z.string().check(z.minLength(1), z.maxLength(2000)) }),
      example: {
        csrf: '5d41402abc4b2a76b9719d911017c592ae9f1e0c8a6e6d2b7c4f3e2a1b0c9d8e',
        au: 'https://example.com/au1',
      },
      handler: async ({ caller, params, body }) => {
        const launched = await cmi5.launchFromPlayer(caller, Number(params.id), body.au);
        return reply(303, undefined, {
          location: launched.launch_url,
          'cache-control': 'no-store',
          vary: 'Authorization, Cookie',
        });
      },
    }),
    route({
      method: 'POST',
      path: '/admin/cmi5/launches',
      auth: 'admin',
      personOnly: true,
      status: 201,
      summary:
        'Launch a cmi5 AU for a learner (a test driver): the launch URL with endpoint, fetch, actor, registration',
      description:
        'Opens a session in a new registration (or the one named), writes LMS.LaunchData and the `launched` ' +
        'statement. The AU fetches its auth-token once from the `fetch` URL (docs/lrs.md).',
      body: cmi5LaunchBody,
      response: cmi5LaunchSchema,
      example: { moduleid: 7, userid: 12, au_id: 'https://example.com/courses/safety/au1', launch_mode: 'Normal' },
      extensions: { 'x-beyond-spec': true },
      handler: ({ caller, body }) => cmi5.launch(caller, body),
    }),
    route({
      method: 'GET',
      path: '/admin/cmi5/registrations/{registration}',
      auth: 'admin',
      personOnly: true,
      summary: 'A cmi5 registration: what the LMS judged of each AU, the satisfied blocks and course',
      params: cmi5RegistrationParams,
      response: cmi5RegistrationSchema,
      extensions: { 'x-beyond-spec': true },
      handler: ({ caller, params }) => cmi5.getRegistration(caller, params.registration),
    }),
    route({
      method: 'GET',
      path: '/admin/cmi5/registrations/{registration}/statements',
      auth: 'admin',
      personOnly: true,
      summary: "A cmi5 registration's statements, oldest first (500 at most; `more` continues at /xapi/statements)",
      params: cmi5RegistrationParams,
      response: z.object({ statements: z.array(z.record(z.string(), z.unknown())), more: z.string() }),
      extensions: { 'x-beyond-spec': true },
      handler: ({ caller, params }) => cmi5.registrationStatements(caller, params.registration),
    }),
    route({
      method: 'POST',
      path: '/admin/cmi5/registrations/{registration}/waive',
      auth: 'admin',
      personOnly: true,
      summary: 'Waive a cmi5 AU in a registration: the LMS states `waived` and judges moveOn',
      params: cmi5RegistrationParams,
      body: cmi5WaiveBody,
      response: cmi5RegistrationSchema,
      example: { au_id: 'https://example.com/courses/safety/au1', reason: 'Tested Out' },
      extensions: { 'x-beyond-spec': true },
      handler: ({ caller, params, body }) => cmi5.waive(caller, params.registration, body),
    }),
    route({
      method: 'POST',
      path: '/admin/cmi5/sessions/{session_id}/abandon',
      auth: 'admin',
      personOnly: true,
      status: 204,
      summary: 'Abandon an open cmi5 session: the LMS states `abandoned`; 409 when it has ended',
      params: cmi5SessionParams,
      extensions: { 'x-beyond-spec': true },
      handler: async ({ caller, params }) => {
        await cmi5.abandon(params.session_id, caller);
      },
    }),
    route({
      method: 'POST',
      path: '/admin/cmi5/sessions/abandon_stale',
      auth: 'admin',
      personOnly: true,
      summary: 'The abandon sweep now: open sessions launched longer ago than `older_than_seconds` are abandoned',
      body: abandonStaleBody,
      response: z.object({ abandoned: z.array(z.string()) }),
      example: { older_than_seconds: 86400 },
      extensions: { 'x-beyond-spec': true },
      handler: ({ caller, body }) => cmi5.abandonStale(body, caller),
    }),
    route({
      method: 'POST',
      path: '/admin/lrs_credentials',
      auth: 'admin',
      personOnly: true,
      mintsCredentials: true,
      status: 201,
      summary: 'Create an LRS credential {name, scopes}; the answer carries the secret, the only time it is shown',
      description:
        'An xAPI client sends `key:secret` as HTTP Basic to <site>/xapi/. Scopes as xAPI names them: ' +
        '`statements/write`, `statements/read/mine`, `statements/read`, `state`, `define`, `profile`, ' +
        '`all/read`, `all`. It works until revoked (docs/lrs.md).',
      body: createLrsCredentialBody,
      response: createdLrsCredentialSchema,
      example: { name: 'Simulator fleet', scopes: ['statements/write', 'state'] },
      extensions: { 'x-beyond-spec': true },
      handler: ({ caller, body }) => credentials.create(caller, body),
    }),
    route({
      method: 'GET',
      path: '/admin/lrs_credentials',
      auth: 'admin',
      personOnly: true,
      summary: 'The LRS credentials, oldest first: {"lrs_credentials": [...]} (never the secrets)',
      response: z.object({ lrs_credentials: z.array(lrsCredentialSchema) }),
      extensions: { 'x-beyond-spec': true },
      handler: ({ caller }) => credentials.list(caller),
    }),
    route({
      method: 'GET',
      path: '/admin/lrs_credentials/{key}',
      auth: 'admin',
      personOnly: true,
      summary: 'One LRS credential (without its secret)',
      params: lrsCredentialParams,
      response: lrsCredentialSchema,
      extensions: { 'x-beyond-spec': true },
      handler: ({ caller, params }) => credentials.get(caller, params.key),
    }),
    route({
      method: 'DELETE',
      path: '/admin/lrs_credentials/{key}',
      auth: 'admin',
      personOnly: true,
      status: 204,
      summary: 'Revoke an LRS credential: it stops working at once',
      params: lrsCredentialParams,
      extensions: { 'x-beyond-spec': true },
      handler: async ({ caller, params }) => {
        await credentials.revoke(caller, params.key);
      },
    }),
  ],
});
