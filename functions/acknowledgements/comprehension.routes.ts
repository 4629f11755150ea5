/**
 * Comprehension quizzes tied to a release's acknowledgements, and declines
 * (docs/competency.md "Comprehension and decline"; decision 304).
 */
import * as z from 'zod/mini';
import { route } from '../../shared/http/route.ts';
import { idParams } from '../../shared/http/schemas.ts';
import * as comprehension from './comprehension.service.ts';
import { comprehensionBody, declineBody } from './comprehension.schemas.ts';
import { readQuery } from './acknowledgements.schemas.ts';

const comprehensionSchema = z.object({
  releaseid: z.int(),
  quizid: z.nullable(z.int()),
  /** Whether the caller, asked to acknowledge the release, passed the quiz since; null: not asked or no quiz. */
  passed: z.nullable(z.boolean()),
});
const declineSchema = z.object({
  declineid: z.string(),
  releaseid: z.int(),
  userid: z.int(),
  comment: z.string(),
  date: z.number(),
});

export const comprehensionRoutes = [
  route({
    method: 'GET',
    path: '/acknowledgements/{releaseid}/comprehension',
    auth: 'user',
    summary: "A release's comprehension quiz, and whether you passed it",
    description:
      '`quizid` null: no quiz; signing needs none. `passed`: for a person asked to acknowledge the release, whether ' +
      'they passed the quiz (a submitted, passing session, not invalidated) since they were asked. The person asked, ' +
      'or whoever may change the document.',
    params: idParams('releaseid'),
    response: comprehensionSchema,
    handler: ({ caller, params }) => comprehension.getComprehension(caller, params.releaseid),
  }),
  route({
    method: 'PUT',
    path: '/acknowledgements/{releaseid}/comprehension',
    auth: 'user',
    summary: 'Tie a comprehension quiz to a release: signing its acknowledgement waits for a pass',
    description:
      '`quizid`: an existing, enabled quiz (422 otherwise); null unties it. Whoever may change the document. ' +
      'Once tied, `POST /acknowledgements/{releaseid}/sign` is 403 `{message, comprehension_quizid}` until the ' +
      'signer passed the quiz after being asked (`POST /quizzes/sessions/submit`). Audited on the document.',
    params: idParams('releaseid'),
    body: comprehensionBody,
    example: { quizid: 12 },
    response: comprehensionSchema,
    handler: ({ caller, params, body }) => comprehension.putComprehension(caller, params.releaseid, body),
  }),
  route({
    method: 'POST',
    path: '/acknowledgements/{releaseid}/decline',
    auth: 'user',
    status: 201,
    summary: "Decline to sign, with a comment for the document's owner",
    description:
      '`comment` (1-2000 characters): a question, an error found. The person asked, while the acknowledgement is ' +
      'pending (409 once signed or superseded; 409 past 20 declines). The acknowledgement stays pending and due. ' +
      'Kept as its history (GET …/declines), audited, emitted as `acknowledgement.declined`, mailed to the ' +
      "document's owner.",
    params: idParams('releaseid'),
    body: declineBody,
    example: { comment: 'Step 4 names a 10 mm socket but the bolt is 13 mm: which is right?' },
    response: declineSchema,
    handler: ({ caller, params, body }) => comprehension.decline(caller, params.releaseid, body),
  }),
  route({
    method: 'GET',
    path: '/acknowledgements/{releaseid}/declines',
    auth: 'user',
    summary: "A person's declines of a release's acknowledgement, oldest first",
    description: "Your own; another's (`userid`): whoever may change the document.",
    params: idParams('releaseid'),
    query: readQuery,
    response: z.array(declineSchema),
    handler: ({ caller, params, query }) => comprehension.listDeclines(caller, params.releaseid, query.userid),
  }),
];
