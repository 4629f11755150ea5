/**
 * Periodic review (spec "Periodic review"; bodies are ours, docs/wire-fidelity.md §3.24 found none):
 * schedules (prsid) with documents (prdid), signed reviews of a document's current revision,
 * change requests, and each user's due documents. Literal segments win over parameters, so
 * /periodic_review/reviews/{userid} is never read as /periodic_review/{doctype}/{docid}.
 */
import { lazyService } from '../../shared/http/lazy-service.ts';
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { stepUpRefusal } from '../../shared/http/step-up-refusal.ts';
import { idParams, pathId } from '../../shared/http/schemas.ts';
import { DOCTYPES } from '../../shared/domain/doctypes.ts';
import type * as SchedulesService from './schedules.service.ts';
import type * as ReviewsService from './reviews.service.ts';
import {
  addDocumentsBody,
  changeRequestsQuery,
  dueDocumentsQuery,
  MAX_DOCUMENT_CHANGES,
  pageQuery,
  removeDocumentsBody,
  reviewBody,
  scheduleBody,
} from './periodic-review.schemas.ts';
import {
  changeRequestSchema,
  documentScheduleSchema,
  reviewDocumentSchema,
  reviewSchema,
  scheduleSchema,
  scheduleWithDocumentsSchema,
} from '../../shared/views/periodic-review-views.ts';

const schedules = lazyService<typeof SchedulesService>(() => import('./schedules.service.ts'));
const reviews = lazyService<typeof ReviewsService>(() => import('./reviews.service.ts'));

export const periodicReviewGroup = defineGroup({
  name: 'periodic-review',
  access: { table: 'readwrite', conditionChecks: true },
  routes: [
    route({
      method: 'POST',
      path: '/periodic_review',
      auth: 'admin',
      summary: 'Create a review schedule (201): a period and a default reviewer; documents are added to it',
      description:
        'Documents in the schedule are due one period after they were added or last reviewed (calendar ' +
        'months and years in UTC).',
      status: 201,
      body: scheduleBody,
      example: {
        name: 'Annual SOP review',
        description: 'ISO 13485 §4.2.4',
        frequency_quantity: 12,
        frequency_unit: 'month',
        reviewer_userid: 1,
      },
      response: scheduleSchema,
      handler: ({ caller, body }) => schedules.createSchedule(caller, body),
    }),
    route({
      method: 'GET',
      path: '/periodic_review',
      auth: 'author',
      summary: 'List review schedules by prsid: {"schedules": [...]}',
      query: pageQuery,
      response: z.object({ schedules: z.array(scheduleSchema) }),
      handler: ({ query }) => schedules.list(query),
    }),
    route({
      method: 'GET',
      path: '/periodic_review/{prsid}',
      auth: 'author',
      summary: 'A schedule and one page of its documents (limit/offset page the documents)',
      params: idParams('prsid'),
      query: pageQuery,
      response: scheduleWithDocumentsSchema,
      handler: ({ params, query }) => schedules.get(params.prsid, query),
    }),
    route({
      method: 'DELETE',
      path: '/periodic_review/{prsid}',
      auth: 'admin',
      summary: 'Delete a schedule that has no documents (204; 422 has_documents otherwise)',
      description: 'Reviews and change requests made under the schedule stay on record.',
      status: 204,
      params: idParams('prsid'),
      handler: async ({ caller, params }) => {
        await schedules.deleteSchedule(caller, params.prsid);
      },
    }),
    route({
      method: 'POST',
      path: '/periodic_review/documents',
      auth: 'admin',
      summary: `Add guides or wiki pages to a schedule (201), all or none, at most ${MAX_DOCUMENT_CHANGES} per request`,
      description:
        "Each document gets a prdid, a reviewer (its own reviewer_userid or the schedule's) and a first due " +
        'date (due_date, or one period from now). A document is in at most one schedule: 422 already_scheduled.',
      status: 201,
      body: addDocumentsBody,
      example: {
        prsid: 1,
        documents: [
          { doctype: 'guide', docid: 1 },
          { doctype: 'wiki', docid: 2, reviewer_userid: 1 },
        ],
      },
      response: z.object({ prsid: z.int(), documents: z.array(reviewDocumentSchema) }),
      handler: ({ caller, body }) => schedules.addDocuments(caller, body),
    }),
    route({
      method: 'DELETE',
      path: '/periodic_review/documents',
      auth: 'admin',
      summary:
        `Remove documents from their schedules (204), all or none, at most ${MAX_DOCUMENT_CHANGES}: ` +
        `{"prdids": [...]}`,
      status: 204,
      body: removeDocumentsBody,
      example: { prdids: [1, 2] },
      handler: async ({ caller, body }) => {
        await schedules.removeDocuments(caller, body.prdids);
      },
    }),
    route({
      method: 'DELETE',
      // {id}: the GET on the same path names a user; OpenAPI allows one parameter name per path.
      path: '/periodic_review/documents/{id}',
      auth: 'admin',
      summary: 'Remove one document (`id` is its prdid) from its schedule (204); its reviews stay on record',
      status: 204,
      params: idParams('id'),
      handler: async ({ caller, params }) => {
        await schedules.removeDocument(caller, params.id);
      },
    }),
    route({
      method: 'GET',
      path: '/periodic_review/search/{searchTerm}',
      auth: 'author',
      summary: 'Scheduled documents with a title word starting with the term: {"documents": [...]}',
      params: z.object({ searchTerm: z.string().check(z.minLength(1), z.maxLength(200)) }),
      query: pageQuery,
      response: z.object({ documents: z.array(reviewDocumentSchema) }),
      handler: ({ params, query }) => schedules.search(params.searchTerm, query),
    }),
    route({
      method: 'POST',
      path: '/periodic_review/review',
      auth: 'user',
      personOnly: true,
      summary: "Review a document's current revision (201): an electronic signature with the reviewer's password",
      description:
        "The document's reviewer or an Admin. `revisionid` names the revision read (409 with the document's " +
        'review state when it is no longer current). `changes_requested` needs `notes` and opens a change ' +
        "request for the document's owner; `approved` resolves an open one. The signature (meaning " +
        '"review") records the printed name, the time and the SHA-256 of the revision. A wrong password is ' +
        '422 (field password) and counts toward the login limit (429). ' +
        'A signer who signs in through a company identity provider leaves `password` out: a fresh step-up ' +
        'there (GET /api/2.0/user/step_up) stands for it, once; their password is a 403 carrying `step_up_url`. ' +
        'The signature shows `authenticated_by`.',
      status: 201,
      body: reviewBody,
      example: { prdid: 1, revisionid: 1, outcome: 'approved', notes: 'Still accurate', password: 'your password' },
      response: reviewSchema,
      errorResponses: stepUpRefusal,
      handler: ({ auth, body, sourceIp }) => reviews.review(auth, body, sourceIp),
    }),
    route({
      method: 'GET',
      path: '/periodic_review/reviews/{userid}',
      auth: 'user',
      summary: 'Reviews a user made, newest first: {"reviews": [...]} (the user and Admins)',
      params: idParams('userid'),
      query: pageQuery,
      response: z.object({ reviews: z.array(reviewSchema) }),
      handler: ({ caller, params, query }) => reviews.reviewsBy(caller, params.userid, query),
    }),
    route({
      method: 'GET',
      path: '/periodic_review/documents/{id}',
      auth: 'user',
      summary:
        'Documents a user (`id`: the userid) is to review, soonest due first: {"documents": [...]} ' +
        '(the user and Admins)',
      description: '`due_before` (Unix seconds) keeps only those due by then, e.g. now for the overdue ones.',
      params: idParams('id'),
      query: dueDocumentsQuery,
      response: z.object({ documents: z.array(reviewDocumentSchema) }),
      handler: ({ caller, params, query }) => reviews.documentsFor(caller, params.id, query),
    }),
    route({
      method: 'GET',
      path: '/periodic_review/requests/{userid}',
      auth: 'user',
      summary:
        'Change requests on documents a user owns, newest first: {"change_requests": [...]} (the user and Admins)',
      description: '`status`: open (default), resolved, or all.',
      params: idParams('userid'),
      query: changeRequestsQuery,
      response: z.object({ change_requests: z.array(changeRequestSchema) }),
      handler: ({ caller, params, query }) => reviews.changeRequestsFor(caller, params.userid, query),
    }),
    route({
      method: 'GET',
      path: '/periodic_review/{doctype}/{docid}',
      auth: 'user',
      summary: 'The schedule of a document, its review state and its latest reviews (schedule null when unscheduled)',
      params: z.object({ doctype: z.enum(DOCTYPES), docid: pathId }),
      response: documentScheduleSchema,
      handler: ({ caller, params }) => reviews.documentSchedule(caller, params.doctype, params.docid),
    }),
  ],
});
