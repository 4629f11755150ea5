/**
 * Approvals (spec "Additional endpoints: Approvals"; bodies are ours, docs/wire-fidelity.md §3.25 found
 * none): processes of 1 to 10 stages (approver team + quorum), attached to wiki pages (guides
 * follow their category page), and approval requests signed stage by stage with electronic
 * signatures. POST /approvals/requests (asking for approval) is beyond the spec: the spec lists
 * no way to start a request, and one is needed.
 */
import { lazyService } from '../../shared/http/lazy-service.ts';
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { stepUpRefusal } from '../../shared/http/step-up-refusal.ts';
import { idParams } from '../../shared/http/schemas.ts';
import { pagination } from '../../shared/http/query.ts';
import { optionalRevisionQuery } from '../../shared/http/revision.ts';
import { MAX_APPROVAL_STAGES } from '../../shared/domain/approval-flow.ts';
import { SIGNING_TOKEN_TTL_SECONDS } from '../../shared/accounts/e-signature.ts';
import type * as ProcessesService from './processes.service.ts';
import type * as RequestsService from './requests.service.ts';
import {
  approvalRequestBody,
  processCreateBody,
  processPatchBody,
  signBody,
  signingTokenBody,
} from './approvals.schemas.ts';
import {
  attachmentSchema,
  guideProcessesSchema,
  processSchema,
  requestSchema,
} from '../../shared/views/approval-views.ts';

const processes = lazyService<typeof ProcessesService>(() => import('./processes.service.ts'));
const requests = lazyService<typeof RequestsService>(() => import('./requests.service.ts'));

const pageQuery = z.object(pagination);

export const approvalsGroup = defineGroup({
  name: 'approvals',
  access: { table: 'readwrite', conditionChecks: true },
  routes: [
    route({
      method: 'GET',
      path: '/approvals/processes',
      auth: 'user',
      summary: 'List approval processes by id: {"processes": [...]}',
      query: pageQuery,
      response: z.object({ processes: z.array(processSchema) }),
      handler: ({ query }) => processes.list(query),
    }),
    route({
      method: 'GET',
      path: '/approvals/process/search/{search_phrase}',
      auth: 'user',
      summary: 'Approval processes with a name word starting with the phrase: {"processes": [...]}',
      params: z.object({ search_phrase: z.string().check(z.minLength(1), z.maxLength(200)) }),
      query: pageQuery,
      response: z.object({ processes: z.array(processSchema) }),
      handler: ({ params, query }) => processes.search(params.search_phrase, query),
    }),
    route({
      method: 'GET',
      path: '/approvals/process/{approval_processid}',
      auth: 'user',
      summary: 'One approval process with its stages',
      params: idParams('approval_processid'),
      response: processSchema,
      handler: ({ params }) => processes.get(params.approval_processid),
    }),
    route({
      method: 'POST',
      path: '/approvals/process',
      auth: 'admin',
      summary:
        `Create an approval process (201): 1 to ${MAX_APPROVAL_STAGES} ordered stages, each an approver team ` +
        `and a quorum`,
      description:
        'A stage is passed when `quorum` members of its team have approved; quorum may not exceed the ' +
        "team's size (422 exceeds_team).",
      status: 201,
      body: processCreateBody,
      example: {
        name: 'SOP release',
        description: 'QA, then the site lead',
        stages: [
          { name: 'Quality', teamid: 1, quorum: 2 },
          { name: 'Site lead', teamid: 2, quorum: 1 },
        ],
      },
      response: processSchema,
      handler: ({ caller, body }) => processes.create(caller, body),
    }),
    route({
      method: 'PATCH',
      path: '/approvals/process/{approval_processid}',
      auth: 'admin',
      summary: "Change a process's name, description or stages (stages are replaced whole)",
      description: 'Requests already made keep the stages they were made with.',
      params: idParams('approval_processid'),
      body: processPatchBody,
      example: { name: 'SOP release (2 stages)' },
      response: processSchema,
      handler: ({ caller, params, body }) => processes.patch(caller, params.approval_processid, body),
    }),
    route({
      method: 'PUT',
      path: '/approvals/{wikiid}/{approval_processid}',
      auth: 'admin',
      summary: 'Attach a process to a wiki page, replacing its previous one',
      description:
        "The page's process governs the page and the pages below it; a CATEGORY page's process governs the " +
        'guides in that category and in categories below it (the nearest attachment wins).',
      params: idParams('wikiid', 'approval_processid'),
      response: attachmentSchema,
      handler: ({ caller, params }) => processes.attach(caller, params.wikiid, params.approval_processid),
    }),
    route({
      method: 'DELETE',
      path: '/approvals/{wikiid}',
      auth: 'admin',
      summary: 'Detach the process of a wiki page (204; 404 when it has none)',
      status: 204,
      params: idParams('wikiid'),
      handler: async ({ caller, params }) => {
        await processes.detach(caller, params.wikiid);
      },
    }),
    route({
      method: 'GET',
      path: '/guides/{guideid}/approvalProcesses',
      auth: 'user',
      summary:
        "The approval processes governing a guide: those of its category page and that page's ancestors, " +
        'nearest (effective) first',
      params: idParams('guideid'),
      response: guideProcessesSchema,
      handler: ({ caller, params }) => processes.ofGuide(caller, params.guideid),
    }),
    route({
      method: 'POST',
      path: '/approvals/requests',
      auth: 'author',
      summary: "Ask for approval of a document's current revision (201); beyond the spec",
      description:
        '`?revisionid=` (required) names the revision to approve: 409 with the document when it is not the ' +
        'current one, 409 with the open request when one is already open for it. The request follows the ' +
        "document's effective process (422 no_approval_process when none). A new revision of the document " +
        'supersedes the request.',
      status: 201,
      query: optionalRevisionQuery,
      revision: 'required',
      body: approvalRequestBody,
      example: { doctype: 'guide', docid: 1, notes: 'Torque values updated' },
      response: requestSchema,
      extensions: { 'x-beyond-spec': true },
      handler: ({ caller, body, query }) => requests.create(caller, body, query.revisionid),
    }),
    route({
      method: 'GET',
      path: '/approvals/requests',
      auth: 'user',
      summary:
        'The caller\'s approval work: {"pending": [requests they may sign now], "requested": [requests they ' +
        'made]}, newest first',
      description: '`limit` and `offset` page each list.',
      query: pageQuery,
      response: z.object({ pending: z.array(requestSchema), requested: z.array(requestSchema) }),
      handler: ({ caller, query }) => requests.listForCaller(caller, query),
    }),
    route({
      method: 'GET',
      path: '/approvals/request/{approval_requestid}',
      auth: 'user',
      summary: 'One approval request with its stages and signatures (the requester, the approver teams, Admins)',
      params: idParams('approval_requestid'),
      response: requestSchema,
      handler: ({ caller, params }) => requests.get(caller, params.approval_requestid),
    }),
    route({
      method: 'POST',
      path: '/approvals/request/sign/{approval_requestid}',
      auth: 'user',
      personOnly: true,
      summary: 'Sign a request (approve or reject, with a reason): an electronic signature',
      description:
        'The signer enters their `password` for this signature, or gives a `signing_token` from POST ' +
        "…/token (then the signer is the token's owner, who may be someone other than the caller). Only " +
        "members of the current stage's team who have not signed yet (403). The signature keeps the printed " +
        'name, the time, the meaning and the SHA-256 of the signed revision. Quorum approvals move the ' +
        'request to the next stage; one rejection ends it. 409 with the request when it is no longer ' +
        'pending, or when the document has a new revision (the request is then superseded), or when ' +
        "`?revisionid=` is given and is not the request's. A wrong password is 422 (field password) and " +
        'counts toward the login limit (429). Impersonation tokens cannot sign. ' +
        'A signer who signs in through a company identity provider leaves `password` out: a fresh step-up ' +
        'there (GET /api/2.0/user/step_up) stands for it, once; their password is a 403 carrying `step_up_url`. ' +
        'Each signature shows `authenticated_by`.',
      params: idParams('approval_requestid'),
      query: optionalRevisionQuery,
      revision: 'when-given',
      body: signBody,
      example: { meaning: 'approve', reason: 'Reviewed against the change order', password: 'your password' },
      response: requestSchema,
      errorResponses: stepUpRefusal,
      handler: ({ auth, params, body, query, sourceIp }) =>
        requests.sign(auth, params.approval_requestid, body, query.revisionid, sourceIp),
    }),
    route({
      method: 'POST',
      path: '/approvals/request/sign/{approval_requestid}/token',
      mintsCredentials: true,
      auth: 'user',
      personOnly: true,
      summary:
        `A single-use signing token for this request (201), valid ${SIGNING_TOKEN_TTL_SECONDS / 60} minutes: ` +
        `the over-the-shoulder signature`,
      description:
        'The signer types their `login` (email or unique_username; default: the caller) and `password`; the ' +
        "answer's `signing_token` signs this request once, as that signer, through POST " +
        '/approvals/request/sign/{approval_requestid}. The signer must be able to sign the request now (403 ' +
        'otherwise). A wrong login or password is 422 (field password) and counts toward the login limit (429). ' +
        'The caller who signs through an identity provider leaves `password` out (their fresh step-up); ' +
        'someone else who does is a 403 whose `step_up_url` (GET /sso/sign_for) signs them in on this device.',
      status: 201,
      params: idParams('approval_requestid'),
      body: signingTokenBody,
      example: { login: 'qa.lead@example.com', password: 'their password' },
      response: z.object({
        signing_token: z.string(),
        expires_at: z.int(),
        approval_requestid: z.int(),
        signer: z.object({ userid: z.int(), username: z.string() }),
      }),
      errorResponses: stepUpRefusal,
      handler: ({ auth, params, body, sourceIp }) =>
        requests.issueToken(auth, params.approval_requestid, body, sourceIp),
    }),
  ],
});
