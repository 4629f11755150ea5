/**
 * Comments with their replies and authors, loaded and then built by the comment views
 * (shared/views/comment-views.ts): for the comments group and the full guide view.
 */
import { config } from '../config.ts';
import { getUsers } from '../db/entities/user.ts';
import {
  commentFromItem,
  documentCommentsCollection,
  getComments,
  replyIds,
  type CommentContext,
  type CommentRecord,
} from '../db/entities/comment.ts';
import { queryPage } from '../db/paging.ts';
import { commentView, type CommentReplyView, type CommentView } from '../views/comment-views.ts';

/** How many top-level comments a guide or step shows inline; the rest are in GET /comments. */
export const INLINE_COMMENTS = 100;

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

/** The first top-level comments of one document (a guide, a step), with replies, as viewed. */
export async function documentCommentViews(context: CommentContext, contextid: number): Promise<CommentView[]> {
  const items = await queryPage(documentCommentsCollection(context, contextid), { limit: INLINE_COMMENTS, offset: 0 });
  return commentViews(items.map(commentFromItem));
}
