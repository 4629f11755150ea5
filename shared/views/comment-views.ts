/**
 * Comments as the API shows them (wire format §2.10): top-level comments with their replies
 * nested (one level: a reply's `replies` is always empty), authors as user summaries, text
 * rendered from wiki syntax. Used by the comments group and by the full guide view (guide and
 * step `comments`).
 */
import * as z from 'zod/mini';
import { config } from '../config.ts';
import { userSummarySchema } from './common-schemas.ts';
import { authorSummary } from './user-views.ts';
import { renderWiki } from '../domain/wiki-syntax/index.ts';
import { getUsers, type UserRecord } from '../db/entities/user.ts';
import {
  commentFromItem,
  documentCommentsCollection,
  getComments,
  replyIds,
  type CommentContext,
  type CommentRecord,
} from '../db/entities/comment.ts';
import { queryPage } from '../db/paging.ts';

/** How many top-level comments a guide or step shows inline; the rest are in GET /comments. */
export const INLINE_COMMENTS = 100;

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

export async function commentViews(comments: CommentRecord[]): Promise<CommentView[]> {
  const siteUrl = config().STEPWISE_SITE_URL;
  const replyLists = await Promise.all(
    comments.map((comment) => (comment.reply_count > 0 && !comment.parentid ? replyIds(comment.commentid) : [])),
  );
  const replies = await getComments(replyLists.flat());
  const repliesById = new Map(replies.map((reply) => [reply.commentid, reply]));
  const authors = new Map(
    (await getUsers([...new Set([...comments, ...replies].map((c) => c.author_userid))])).map((user) => [
      user.userid,
      user,
    ]),
  );
  const view = (comment: CommentRecord): CommentReplyView =>
    commentView(comment, authors.get(comment.author_userid), siteUrl);
  return comments.map((comment, index) => ({
    ...view(comment),
    replies: replyLists[index]
      .map((id) => repliesById.get(id))
      .filter((reply): reply is CommentRecord => reply !== undefined)
      .map(view),
  }));
}

/** One comment without its replies. */
function commentView(comment: CommentRecord, author: UserRecord | undefined, siteUrl: string): CommentReplyView {
  return {
    commentid: comment.commentid,
    locale: comment.locale,
    context: comment.context,
    contextid: comment.contextid,
    parentid: comment.parentid,
    author: authorSummary(author, comment.author_userid, siteUrl),
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

/** The first top-level comments of one document (a guide, a step), with replies, as viewed. */
export async function documentCommentViews(context: CommentContext, contextid: number): Promise<CommentView[]> {
  const items = await queryPage(documentCommentsCollection(context, contextid), { limit: INLINE_COMMENTS, offset: 0 });
  return commentViews(items.map(commentFromItem));
}
