/**
 * Course stage signoffs, served under both published prefixes (wire notes §3.20, §4):
 * /stage-sign-offs/... and /courses/stage-sign-offs/..., except the cancel path (unprefixed
 * only) and the over-the-shoulder pair, initializeViaPassword and its finalize step (/courses
 * only, where the newest docs put them). The spec's `:param` paths are `{param}` here.
 */
import { lazyService } from '../../shared/http/lazy-service.ts';
import * as z from 'zod/mini';
import { FINALIZE_TOKEN_SECONDS } from '../../shared/domain/signature-auth.ts';
import { defineGroup, reply, route, type RouteDef } from '../../shared/http/route.ts';
import { stepUpRefusal } from '../../shared/http/step-up-refusal.ts';
import { idParams } from '../../shared/http/schemas.ts';
import { pagination, queryInt } from '../../shared/http/query.ts';
import { clientGuidSchema } from '../../shared/domain/client-guid.ts';
import type * as SignoffsService from './signoffs.service.ts';
import {
  finalizeBody,
  initializeViaPasswordBody,
  signoffRequestBody,
  signoffResponseBody,
} from './signoffs.schemas.ts';
import { userSummarySchema } from '../../shared/views/common-schemas.ts';
import { signoffFinalizeTokenSchema, signoffRequestSchema } from '../../shared/views/signoff-views.ts';

const signoffs = lazyService<typeof SignoffsService>(() => import('./signoffs.service.ts'));

const listQuery = z.object(pagination);
const signoffRequestsQuery = z.object({
  client_guid: clientGuidSchema,
  userid: queryInt,
});

/** The same route under both prefixes. */
function both(definition: RouteDef): RouteDef[] {
  return [definition, { ...definition, path: `/courses${definition.path}` }];
}

const FLOW =
  "Flow: request (trainee) → pending for the members of the assessment's team → response (a member: approve " +
  'or reject) → unacknowledged → acknowledge (trainee). ' +
  'An approved signoff completes the stage only when acknowledged.';

export const signoffsGroup = defineGroup({
  name: 'signoffs',
  access: { table: 'readwrite', conditionChecks: true },
  routes: [
    ...both(
      route({
        method: 'POST',
        path: '/stage-sign-offs/requests',
        auth: 'user',
        personOnly: true,
        summary: 'Request a signoff for a course stage assessment (201); 409 with the open request when one is open',
        description:
          `${FLOW} Body \`{stage_assessmentid, comments?, client_guid?}\`; the caller must be assigned the ` +
          'course. `client_guid` (a UUID the device made, unique per user: decision 224): sent again with ' +
          'the same body, the request already made (200); with another, 409 with it.',
        status: 201,
        body: signoffRequestBody,
        example: { stage_assessmentid: 1, comments: 'Ready when you are' },
        response: signoffRequestSchema,
        handler: async ({ auth, body }) => {
          const { created, record } = await signoffs.requestSignoff(auth, body);
          return reply(created ? 201 : 200, record);
        },
      }),
    ),
    ...both(
      route({
        method: 'GET',
        path: '/stage-sign-offs/requests',
        auth: 'user',
        summary: "The trainee's signoff request made under a client guid (a list of at most one)",
        description:
          'Finds what a device made offline or resent (decision 224), whatever its state now: `client_guid` ' +
          "of the caller's requests, or of `userid`'s where the caller is the user, their manager or an Admin.",
        query: signoffRequestsQuery,
        queryExample: { client_guid: '0b9e4c1e-5d0a-4f4e-9a43-6c1d2b7e8f10' },
        response: z.array(signoffRequestSchema),
        handler: ({ caller, query }) =>
          signoffs.requestsOfGuid(caller, query.userid ?? caller.userid, query.client_guid),
      }),
    ),
    ...both(
      route({
        method: 'GET',
        path: '/stage-sign-offs/requests/pending/{userid}',
        auth: 'user',
        summary: 'Signoff requests awaiting a response from that user (open requests of the teams they sign for)',
        params: idParams('userid'),
        query: listQuery,
        response: z.array(signoffRequestSchema),
        handler: ({ caller, params, query }) => signoffs.pending(caller, params.userid, query),
      }),
    ),
    ...both(
      route({
        method: 'POST',
        path: '/stage-sign-offs/{stage_assessmentid}/signers',
        auth: 'user',
        summary: 'The users who can sign for the assessment: members of its team (user summaries)',
        params: idParams('stage_assessmentid'),
        query: listQuery,
        response: z.array(userSummarySchema),
        handler: ({ params, query }) => signoffs.signers(params.stage_assessmentid, query),
      }),
    ),
    ...both(
      route({
        method: 'PATCH',
        path: '/stage-sign-offs/responses',
        auth: 'user',
        personOnly: true,
        summary: 'A signer answers a signoff request: `{signoff_requestid, approved (default true), comments?}`',
        description:
          "Members of the assessment's team, never the trainee. 409 with the request when it is not " +
          'awaiting a response.',
        body: signoffResponseBody,
        example: { signoff_requestid: 1, approved: true, comments: 'Well done' },
        response: signoffRequestSchema,
        handler: ({ auth, body }) => signoffs.respond(auth, body),
      }),
    ),
    ...both(
      route({
        method: 'GET',
        path: '/stage-sign-offs/responses/unacknowledged/{userid}',
        auth: 'user',
        summary: "The trainee's answered signoff requests not yet acknowledged",
        params: idParams('userid'),
        query: listQuery,
        response: z.array(signoffRequestSchema),
        handler: ({ caller, params, query }) => signoffs.unacknowledged(caller, params.userid, query),
      }),
    ),
    ...both(
      route({
        method: 'PATCH',
        path: '/stage-sign-offs/responses/{signoff_requestid}/acknowledge',
        auth: 'user',
        personOnly: true,
        summary: 'The trainee acknowledges the response; an approval completes the course stage (not before)',
        params: idParams('signoff_requestid'),
        response: signoffRequestSchema,
        handler: ({ auth, params }) => signoffs.acknowledge(auth, params.signoff_requestid),
      }),
    ),
    route({
      method: 'DELETE',
      path: '/stage-sign-offs/requests/{signoff_requestid}',
      auth: 'user',
      summary: 'The trainee cancels an open signoff request (204) and may request again',
      status: 204,
      params: idParams('signoff_requestid'),
      handler: async ({ auth, params }) => {
        await signoffs.cancel(auth, params.signoff_requestid);
      },
    }),
    route({
      method: 'POST',
      path: '/courses/stage-sign-offs/intents/{client_guid}/confirm',
      auth: 'user',
      personOnly: true,
      summary: 'Sign what an offline intent recorded: the signer confirms with their password (decision 225)',
      description:
        'An intent to answer a signoff request, recorded offline by `POST /user/sync` (`signoff.sign_intent`), ' +
        'stays pending until its signer, signed in, enters their password here: the signature is made now, ' +
        "with the intent's answer and comments; the audit record carries the device's time beside the " +
        "server's. 404 for no such pending intent of the caller's; 409 when confirmed already or the request " +
        'no longer awaits an answer; a wrong password is 422 on `password` (throttled like a login). ' +
        'A signer who signs in through a company identity provider leaves `password` out: a fresh step-up ' +
        'there (GET /api/2.0/user/step_up) stands for it, once; their password is a 403 carrying `step_up_url`.',
      // Any segment: a guid that names no pending intent of the caller's is a 404 (after the body is checked).
      params: z.object({ client_guid: z.string().check(z.minLength(1), z.maxLength(64)) }),
      // Left out by a signer who signs through their identity provider: a fresh step-up stands for it (decision 237).
      body: z.object({ password: z.optional(z.string().check(z.minLength(1))) }),
      example: { password: 'their password' },
      response: signoffRequestSchema,
      errorResponses: stepUpRefusal,
      handler: ({ auth, params, body, sourceIp }) =>
        signoffs.confirmIntent(auth, params.client_guid.toLowerCase(), body.password, sourceIp),
    }),
    route({
      method: 'POST',
      path: '/courses/stage-sign-offs/responses/{signoff_requestid}/initializeViaPassword',
      mintsCredentials: true,
      auth: 'user',
      personOnly: true,
      summary:
        'Over-the-shoulder signoff, step 1: the person not signed in confirms with their password; 201 with ' +
        'a single-use token',
      description:
        'Body `{login (email or unique_username) | email, password}`. The signed-in caller and that person ' +
        'must be the trainee and a signer, in either order. A person who signs in through a company identity ' +
        'provider is a 403 whose `step_up_url` (GET /sso/sign_for) signs them in on this device instead. ' +
        `Failed passwords count toward the login throttle (429 past it); a wrong one is 422 on ` +
        `\`password\`. The token lives ${FINALIZE_TOKEN_SECONDS} s, is stored hashed and works once: ` +
        'PATCH /courses/stage-sign-offs/responses/{signoff_requestid}/finalize.',
      status: 201,
      params: idParams('signoff_requestid'),
      body: initializeViaPasswordBody,
      example: { login: 'signer@example.com', password: 'their password' },
      extensions: { 'x-stepwise-next-step': 'PATCH /courses/stage-sign-offs/responses/{signoff_requestid}/finalize' },
      response: signoffFinalizeTokenSchema,
      errorResponses: stepUpRefusal,
      handler: ({ auth, params, body, sourceIp }) =>
        signoffs.initializeViaPassword(auth, params.signoff_requestid, body, sourceIp),
    }),
    route({
      method: 'PATCH',
      path: '/courses/stage-sign-offs/responses/{signoff_requestid}/finalize',
      auth: 'user',
      personOnly: true,
      summary:
        "Over-the-shoulder signoff, step 2: record the signer's response with the token from initializeViaPassword",
      description:
        'Body `{token, approved (default true), comments?}`; only the caller who initialized it, once, ' +
        'within its lifetime (403 otherwise). Beyond the spec: its path was not published.',
      params: idParams('signoff_requestid'),
      body: finalizeBody,
      example: { token: '0123456789abcdef', approved: true },
      extensions: { 'x-stepwise-beyond-spec': true },
      response: signoffRequestSchema,
      handler: ({ auth, params, body }) => signoffs.finalize(auth, params.signoff_requestid, body),
    }),
  ],
});
