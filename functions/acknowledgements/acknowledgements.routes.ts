/**
 * Read-and-understood acknowledgements of new releases (docs/competency.md; beyond the spec, in
 * its style). A release of a guide or wiki page people are trained on asks them to acknowledge
 * it; they read what changed and sign with their password.
 */
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { stepUpRefusal } from '../../shared/http/step-up-refusal.ts';
import { idParams } from '../../shared/http/schemas.ts';
import {
  acknowledgementSchema,
  acknowledgementWithDiffSchema,
  releaseSignaturesSchema,
} from '../../shared/views/competency-views.ts';
import * as acknowledgements from './acknowledgements.service.ts';
import * as countersigning from './countersign.service.ts';
import * as intents from './intent.service.ts';
import { comprehensionRoutes } from './comprehension.routes.ts';
import {
  countersignBody,
  countersignStepsBody,
  documentSettingsBody,
  pendingQuery,
  readQuery,
  signBody,
} from './acknowledgements.schemas.ts';

const releaseParams = idParams('releaseid');
const settingsSchema = z.object({
  strictness: z.nullable(z.enum(['major', 'minor'])),
  due_days: z.nullable(z.int()),
  audience_userids: z.array(z.int()),
});
const settingsNote =
  '`strictness`: which releases ask for an acknowledgement (`major`: N.0 only; `minor`: every release; null: ' +
  'the site setting, else `major`); `due_days`: days after the release it is due (null: the site default, else ' +
  '14); `audience_userids`: people asked besides the trainees and skill holders.';

const countersignStepsSchema = z.object({ releaseid: z.int(), stepids: z.array(z.int()) });
const settingsOf = (doctype: 'guide' | 'wiki') => (doctype === 'guide' ? 'a guide' : 'a wiki page');
const guideParams = idParams('guideid');
const wikiParams = idParams('wikiid');
const settingsExample = { strictness: 'major', due_days: 7, audience_userids: [2] };

export const acknowledgementsGroup = defineGroup({
  name: 'acknowledgements',
  access: { table: 'readwrite', conditionChecks: true },
  routes: [
    ...comprehensionRoutes,
    route({
      method: 'GET',
      path: '/acknowledgements',
      auth: 'user',
      summary: "Pending acknowledgements: the caller's, a team's or a document's",
      description:
        "Without filters the caller's own, soonest due first. `teamid`: its members' (the team owner or an Admin); " +
        "`guideid` / `wikiid`: the document's (whoever may change it); `client_guid`: the caller's own one signed " +
        'with it (an empty list when none). There is no filter by state: the list holds what is not signed yet, ' +
        'each with its `state`, `pending` or `overdue` (past `due_date`: the first time one is seen overdue an ' +
        '`acknowledgement.overdue` event is emitted). ' +
        '`limit` (1-200, default 20), `offset`.',
      query: pendingQuery,
      response: z.array(acknowledgementSchema),
      handler: ({ caller, query }) => acknowledgements.listPending(caller, query),
    }),
    route({
      method: 'GET',
      path: '/acknowledgements/{releaseid}',
      auth: 'user',
      summary: 'One acknowledgement with what changed since the release last completed or acknowledged',
      description:
        '`diff` is computed from the stored revisions: for a guide, `steps` added, removed, moved and changed ' +
        '(with `lines` as `same` / `added` / `removed` and images added and removed); for a wiki page, its ' +
        "`lines`. The caller's own; `userid` names another person's (whoever may change the document). " +
        '`state`: `pending`, `overdue`, `signed`, `awaiting_countersignature` (marked steps not countersigned yet) ' +
        'or `superseded` (the person completed the document on this release or a newer one first).',
      params: releaseParams,
      query: readQuery,
      response: acknowledgementWithDiffSchema,
      handler: ({ caller, params, query }) => acknowledgements.getOne(caller, params.releaseid, query.userid),
    }),
    route({
      method: 'POST',
      path: '/acknowledgements/{releaseid}/sign',
      auth: 'user',
      personOnly: true,
      summary: 'Sign the acknowledgement of a release (meaning `acknowledged`) with your password',
      description:
        'An electronic signature: `password` is checked under the login throttle (422 on `password` when wrong, ' +
        '429 past the limit); an impersonation token cannot sign (403). Once signed, the completion of the ' +
        'document carries over to this release (docs/stage-status.md), unless the release is marked as needing ' +
        'retraining. 404 when the caller was not asked; 409 with the acknowledgement when already signed. Audited. ' +
        '`client_guid` (a UUID the device made, decision 224): sent again for the same release it answers 200 with ' +
        'the acknowledgement signed then; under another release, 409. ' +
        'A signer who signs in through a company identity provider leaves `password` out: a fresh step-up ' +
        'there (GET /api/2.0/user/step_up) stands for it, once; their password is a 403 carrying `step_up_url`.',
      params: releaseParams,
      body: signBody,
      example: {
        password: 'your password',
        meaning: 'acknowledged',
        client_guid: '5b8f2f0e-3c1d-4f7a-9a51-0d6a3c2b9e41',
      },
      response: acknowledgementSchema,
      errorResponses: stepUpRefusal,
      handler: ({ caller, auth, params, body, sourceIp }) =>
        acknowledgements.sign(caller, auth, params.releaseid, body, sourceIp),
    }),
    route({
      method: 'POST',
      path: '/acknowledgements/intents/{client_guid}/confirm',
      auth: 'user',
      personOnly: true,
      summary: 'Sign what an offline intent to acknowledge recorded: the signer confirms (decision 252)',
      description:
        'An intent to acknowledge a release, recorded offline by `POST /user/sync` (`acknowledgement.sign_intent`), ' +
        'stays pending until its signer, signed in, proves themselves here: the signature is made now by the ' +
        "sign route's code under the intent's client_guid (`POST /acknowledgements/{releaseid}/sign` sent with " +
        "that guid answers the same signature); the audit record carries the device's time and the intent's " +
        "guid beside the server's. 404 for no such intent of the caller's; 409 when confirmed already or the " +
        'acknowledgement is no longer pending; a wrong password is 422 on `password` (throttled like a login). ' +
        'A signer who signs in through a company identity provider leaves `password` out: a fresh step-up ' +
        'there (GET /api/2.0/user/step_up) stands for it, once; their password is a 403 carrying `step_up_url`.',
      // Any segment: a guid that names no intent of the caller's is a 404 (after the body is checked).
      params: z.object({ client_guid: z.string().check(z.minLength(1), z.maxLength(64)) }),
      body: z.object({ password: z.optional(z.string().check(z.minLength(1))) }),
      example: { password: 'your password' },
      response: acknowledgementSchema,
      errorResponses: stepUpRefusal,
      handler: ({ auth, params, body, sourceIp }) =>
        intents.confirmIntent(auth, params.client_guid.toLowerCase(), body.password, sourceIp),
    }),
    route({
      method: 'GET',
      path: '/acknowledgements/{releaseid}/signatures',
      auth: 'user',
      summary: 'Who has and who has not signed the acknowledgement of a release',
      description: 'Whoever may change the document. Overdue ones emit `acknowledgement.overdue` once.',
      params: releaseParams,
      response: releaseSignaturesSchema,
      handler: ({ caller, params }) => acknowledgements.signatures(caller, params.releaseid),
    }),
    route({
      method: 'GET',
      path: '/acknowledgements/{releaseid}/countersign-steps',
      auth: 'user',
      summary: "The steps of a guide release that need a supervisor's countersignature",
      description: 'Whoever may change the guide.',
      params: releaseParams,
      response: countersignStepsSchema,
      handler: ({ caller, params }) => countersigning.getSteps(caller, params.releaseid),
    }),
    route({
      method: 'PUT',
      path: '/acknowledgements/{releaseid}/countersign-steps',
      auth: 'user',
      summary: "Mark steps of a guide release as needing a supervisor's countersignature",
      description:
        "`stepids`: steps of the release's revision (422 otherwise; [] clears). From then on a person who signs the " +
        "release's acknowledgement is complete only once a qualified supervisor countersigns it " +
        '(`POST /acknowledgements/{releaseid}/countersign/{userid}`). Whoever may change the guide; audited.',
      params: releaseParams,
      body: countersignStepsBody,
      example: { stepids: [3, 5] },
      response: countersignStepsSchema,
      handler: ({ caller, params, body }) => countersigning.putSteps(caller, params.releaseid, body),
    }),
    route({
      method: 'POST',
      path: '/acknowledgements/{releaseid}/countersign/{userid}',
      auth: 'user',
      personOnly: true,
      summary: "Countersign a person's acknowledgement of the marked steps (a qualified supervisor, by password)",
      description:
        'A qualified supervisor: an Admin, or someone holding level 4 (current) in every skill of the guide; ' +
        'never the person (403). `password` as for every e-signature (422 when wrong, 429 past the throttle). ' +
        '409 when the acknowledgement awaits no countersignature or has one. ' +
        "Completes it: the person's completion carries over. Audited; emits `acknowledgement.countersigned`. " +
        'A supervisor who signs through a company identity provider leaves `password` out (a fresh step-up).',
      params: idParams('releaseid', 'userid'),
      body: countersignBody,
      example: { password: 'your password', comment: 'Watched the seal check.' },
      response: acknowledgementSchema,
      errorResponses: stepUpRefusal,
      handler: ({ caller, auth, params, body, sourceIp }) =>
        countersigning.countersign(caller, auth, params.releaseid, params.userid, body, sourceIp),
    }),
    route({
      method: 'POST',
      path: '/acknowledgements/{releaseid}/retraining',
      auth: 'user',
      summary: 'Mark a release as needing retraining: earlier completions and levels no longer carry over',
      description:
        'Whoever may change the document. Only a released version; a newer release already marked is 409. Audited.',
      params: releaseParams,
      response: z.object({ releaseid: z.int(), version: z.string(), retraining: z.literal(true) }),
      handler: ({ caller, params }) => acknowledgements.markRetraining(caller, params.releaseid),
    }),
    route({
      method: 'GET',
      path: '/acknowledgements/settings/guides/{guideid}',
      auth: 'user',
      summary: `The acknowledgement settings of ${settingsOf('guide')}`,
      description: `${settingsNote} Whoever may change the guide.`,
      params: guideParams,
      response: settingsSchema,
      handler: ({ caller, params }) => acknowledgements.getDocumentSettings(caller, 'guide', params.guideid),
    }),
    route({
      method: 'PUT',
      path: '/acknowledgements/settings/guides/{guideid}',
      auth: 'user',
      summary: `Set the acknowledgement settings of ${settingsOf('guide')}`,
      description: `${settingsNote} Fields left out keep their value. Whoever may change the guide; audited.`,
      params: guideParams,
      body: documentSettingsBody,
      example: settingsExample,
      response: settingsSchema,
      handler: ({ caller, params, body }) =>
        acknowledgements.putDocumentSettings(caller, 'guide', params.guideid, body),
    }),
    route({
      method: 'GET',
      path: '/acknowledgements/settings/wikis/{wikiid}',
      auth: 'user',
      summary: `The acknowledgement settings of ${settingsOf('wiki')}`,
      description: `${settingsNote} Authors and Admins.`,
      params: wikiParams,
      response: settingsSchema,
      handler: ({ caller, params }) => acknowledgements.getDocumentSettings(caller, 'wiki', params.wikiid),
    }),
    route({
      method: 'PUT',
      path: '/acknowledgements/settings/wikis/{wikiid}',
      auth: 'user',
      summary: `Set the acknowledgement settings of ${settingsOf('wiki')}`,
      description: `${settingsNote} Fields left out keep their value. Authors and Admins; audited.`,
      params: wikiParams,
      body: documentSettingsBody,
      example: settingsExample,
      response: settingsSchema,
      handler: ({ caller, params, body }) => acknowledgements.putDocumentSettings(caller, 'wiki', params.wikiid, body),
    }),
  ],
});
