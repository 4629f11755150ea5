/**
 * Comments as the API shows them (wire format §2.10): top-level comments with their replies
 * nested (one level: a reply's `replies` is always empty), authors as user summaries, text
 * rendered from wiki syntax. Used by the comments group and by the full guide view (guide and
 * step `comments`).
 */
import * as z from 'zod/mini';
import { userSummarySchema } from './common-schemas.ts';
import { authorSummary } from './user-views.ts';
import { renderWiki } from '../domain/wiki-syntax/index.ts';
import type { UserRecord } from '../db/entities/user.ts';
import type { CommentRecord } from '../db/entities/comment.ts';

const commentFields = {
  commentid: z.int(),
  locale: z.string(),
  context: z.enum(['guide', 'step', 'wiki', 'post', 'info']),
  contextid: z.int(),
  parentid: z.nullable(z.int()),
  /** Never null: a gone account shows as "Deleted user" with the default avatar (decision 195). */
  author: userSummarySchema,
  /** The title of the commented document when the comment was written. */
  title: z.string(),
  text_raw: z.string(),
  text_rendered: z.string(),
  rating: z.number(),
  date: z.int(),
  modified_date: z.int(),
  /** Date of the latest reply; 0 without replies. */
  replied_date: z.int(),
  status: z.enum(['public', 'private']),
};

/** A reply: replies do not nest, so its own `replies` is always empty. */
export const commentReplySchema = z.object({ ...commentFields, replies: z.tuple([]) });
export const commentSchema = z.object({ ...commentFields, replies: z.array(commentReplySchema) });

export type CommentReplyView = z.output<typeof commentReplySchema>;
export type CommentView = z.output<typeof commentSchema>;

/** One comment without its replies (the comments read-model nests them: shared/read-models/comments.ts). */
export function commentView(comment: CommentRecord, author: UserRecord | undefined, siteUrl: string): CommentReplyView {
  return {
    commentid: comment.commentid,
    locale: comment.locale,
    context: comment.context,
    contextid: comment.contextid,
    parentid: comment.parentid,
    author: authorSummary(author, comment.author_userid, siteUrl, comment.service_author),
    title: comment.title,
    text_raw: comment.text_raw,
    text_rendered: renderWiki(comment.text_raw, { siteUrl }).html,
    rating: comment.rating,
    date: comment.date,
    modified_date: comment.modified_date,
    replied_date: comment.replied_date,
    status: comment.status,
    replies: [],
  };
}
