/**
 * Comments on guides, steps, wiki pages, info pages and posts, with one level of replies
 * (parentid). Edits by the author within 5 minutes; deletes by the author or an Admin.
 */
import * as z from 'zod/mini';
import { defineGroup, reply, route } from '../../shared/http/route.ts';
import { idParams, pathId } from '../../shared/http/schemas.ts';
import { commentSchema } from '../../shared/views/comment-views.ts';
import { commentEditBody, commentListQuery, newCommentBody } from './comments.schemas.ts';
import * as comments from './comments.service.ts';

export const commentsGroup = defineGroup({
  name: 'comments',
  access: { table: 'readwrite', conditionChecks: true },
  routes: [
    route({
      method: 'GET',
      path: '/comments',
      auth: 'user',
      summary: 'Top-level comments by commentid with their replies nested (bare array), those the caller may read',
      description:
        'Filters: createdSince and modifiedSince (Unix seconds), context (guide, step, wiki, post, info), langid; ' +
        'order ASC (default) or DESC; offset/limit. Comments on guides and steps the caller cannot see are left out.',
      query: commentListQuery,
      response: z.array(commentSchema),
      handler: ({ caller, query }) => comments.list(caller, query),
    }),
    route({
      method: 'GET',
      path: '/comments/{commentid}',
      auth: 'user',
      summary: 'One comment (with its replies when it starts a thread)',
      params: idParams('commentid'),
      response: commentSchema,
      handler: ({ caller, params }) => comments.get(caller, params.commentid),
    }),
    route({
      method: 'POST',
      path: '/comments/{context}/{contextid}',
      auth: 'user',
      status: 201,
      summary:
        'Comment on a guide, step, wiki, post or info page (singular or plural spelling); parentid answers a comment',
      description:
        'contextid is the guideid, stepid or wikiid (info: the wikiid of an INFO page; posts are not checked). ' +
        'The caller must be able to see the guide of a guide or step comment. langid (or langId) defaults ' +
        'to the site language. `client_guid` (a UUID the device made, unique per user: decision 224): ' +
        'sent again with the same request, the comment already made (200); with another, 409 with it.',
      params: z.object({ context: z.string().check(z.minLength(1), z.maxLength(20)), contextid: pathId }),
      body: newCommentBody,
      example: { text: 'Check the torque twice.' },
      response: commentSchema,
      handler: async ({ caller, params, body }) => {
        const { created, record } = await comments.create(caller, params.context, params.contextid, body);
        return reply(created ? 201 : 200, record);
      },
    }),
    route({
      method: 'PATCH',
      path: '/comments/{commentid}',
      auth: 'user',
      summary: 'Edit a comment: only its author, within 5 minutes of its date (403 otherwise)',
      params: idParams('commentid'),
      body: commentEditBody,
      example: { text: 'Check the torque twice (25 Nm).' },
      response: commentSchema,
      handler: ({ caller, params, body }) => comments.edit(caller, params.commentid, body),
    }),
    route({
      method: 'DELETE',
      path: '/comments/{commentid}',
      auth: 'user',
      status: 204,
      summary: 'Delete a comment and its replies: its author, or an Admin (moderation is audited)',
      params: idParams('commentid'),
      handler: async ({ caller, params }) => {
        await comments.remove(caller, params.commentid);
      },
    }),
  ],
});
