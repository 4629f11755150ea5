/**
 * `POST /user/sync`: a device's offline journal (docs/offline.md, decisions 225 and 248). In the
 * work-log group because most of its actions are work-log use cases; the others call creates
 * that live in shared/ (a group never calls another's).
 */
import { lazyService } from '../../shared/http/lazy-service.ts';
import * as z from 'zod/mini';
import { route } from '../../shared/http/route.ts';
import { RequestError } from '../../shared/http/respond.ts';
import type * as JournalService from './sync.service.ts';
import {
  MAX_JOURNAL_ACTIONS,
  MAX_JOURNAL_BYTES,
  MAX_JOURNAL_BYTES_TEXT,
  SYNC_ACTION_TYPES,
  syncBody,
} from './sync.schemas.ts';
import { pagination } from '../../shared/http/query.ts';
import { signIntentSchema } from '../../shared/views/sign-intent-views.ts';
import { listSignIntents, SIGN_INTENT_STATES } from './sign-intents.ts';

const journal = lazyService<typeof JournalService>(() => import('./sync.service.ts'));

const resultSchema = z.object({
  client_guid: z.string(),
  type: z.enum(SYNC_ACTION_TYPES),
  status: z.enum(['applied', 'already_applied', 'pending', 'conflict', 'rejected', 'skipped', 'not_applied']),
  http_status: z.int(),
  entryid: z.optional(z.int()),
  commentid: z.optional(z.int()),
  quiz_sessionid: z.optional(z.int()),
  signoff_requestid: z.optional(z.int()),
  conflict: z.optional(z.object({ reason: z.string(), message: z.string(), current: z.optional(z.unknown()) })),
  device_time: z.int(),
  server_time: z.int(),
});

export const syncRoutes = [
  route({
    method: 'POST',
    path: '/user/sync',
    auth: 'user',
    personOnly: true,
    summary: 'Apply a journal of work done offline, in order, each action once; a result per action',
    description:
      `At most ${MAX_JOURNAL_ACTIONS} actions (422 past it) and ${MAX_JOURNAL_BYTES_TEXT} bytes ` +
      '(413 past it); ' +
      'a longer journal is sent in parts. Each action has its own `client_guid` (a UUID), `device_time`, ' +
      'optionally the guide `revisionid` it was made against, and `entry` (an entryid or the client_guid of ' +
      'the `work_log.start` that made it). Types: work_log.start, .step_data, .pause, .resume, .finish, ' +
      '.cancel; signoff.sign_intent and acknowledgement.sign_intent (recorded, signed only online); ' +
      'comment.create, quiz.submit and ' +
      "signoff.request (the routes' creates; the result names the record's id). " +
      'Sent again, whole or cut anywhere, a journal has the effect of one ' +
      'delivery: what was done answers `already_applied`. Conflicts are reported per action, never dropped ' +
      '(docs/offline.md). Always 200 when the journal is well-formed.',
    body: syncBody,
    errorResponses: {
      '413': {
        description: `The journal is over ${MAX_JOURNAL_BYTES_TEXT} bytes: send it in parts`,
        schema: z.object({ message: z.string() }),
      },
      '422': {
        description:
          `Not a journal: a field is wrong, or more than ${MAX_JOURNAL_ACTIONS} actions ` +
          '(`{message, errors: [{field: "actions", ...}]}`): send it in parts',
      },
    },
    example: {
      actions: [
        {
          client_guid: '4f1c2a9e-8d3b-4c7a-9e21-5b6d7f8a9c01',
          type: 'work_log.start',
          device_time: 1767225600,
          revisionid: 3,
          data: { guideid: 1, workorderid: 'WO-1234' },
        },
        {
          client_guid: '4f1c2a9e-8d3b-4c7a-9e21-5b6d7f8a9c02',
          type: 'work_log.finish',
          device_time: 1767226200,
          entry: '4f1c2a9e-8d3b-4c7a-9e21-5b6d7f8a9c01',
        },
      ],
    },
    response: z.object({ results: z.array(resultSchema) }),
    responseExample: {
      results: [
        {
          client_guid: '4f1c2a9e-8d3b-4c7a-9e21-5b6d7f8a9c01',
          type: 'work_log.start',
          status: 'applied',
          http_status: 201,
          entryid: 17,
          device_time: 1767225600,
          server_time: 1767229000,
        },
        {
          client_guid: '4f1c2a9e-8d3b-4c7a-9e21-5b6d7f8a9c02',
          type: 'work_log.finish',
          status: 'applied',
          http_status: 200,
          entryid: 17,
          device_time: 1767226200,
          server_time: 1767229000,
        },
      ],
    },
    handler: ({ auth, body, headers }) => {
      const bytes = Number(headers['content-length'] ?? Buffer.byteLength(JSON.stringify(body)));
      if (bytes > MAX_JOURNAL_BYTES)
        throw new RequestError(413, `A journal is at most ${MAX_JOURNAL_BYTES} bytes: send it in parts`);
      return journal.sync(auth, body.actions);
    },
  }),
  route({
    method: 'GET',
    path: '/user/sign_intents',
    auth: 'user',
    summary: 'Your intents to sign recorded offline (POST /user/sync), each with the route that signs it online',
    description:
      'Default `state=pending`: what still awaits your password or step-up; `confirmed` or `all` for the ' +
      "others. So a device that lost its journal still finds what to confirm. Ordered by client_guid; a token's " +
      'list is empty (it records no intents).',
    query: z.object({ state: z._default(z.enum(SIGN_INTENT_STATES), 'pending'), ...pagination }),
    queryExample: { state: 'pending' },
    response: z.array(signIntentSchema),
    responseExample: [
      {
        client_guid: '5b8f2f0e-3c1d-4f7a-9a51-0d6a3c2b9e41',
        kind: 'acknowledgement',
        signoff_requestid: null,
        releaseid: 12,
        approved: null,
        comments: null,
        device_time: 1767225600,
        recorded_date: 1767229000,
        state: 'pending',
        confirmed_date: null,
        confirm_path: '/acknowledgements/intents/5b8f2f0e-3c1d-4f7a-9a51-0d6a3c2b9e41/confirm',
      },
    ],
    extensions: { 'x-beyond-spec': true },
    handler: ({ caller, query }) => listSignIntents(caller, query),
  }),
];
