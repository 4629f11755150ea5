/**
 * Comments as the API shows them (wire format §2.10): top-level comments with their replies
 * nested, authors as user summaries, text rendered from wiki syntax. Used by the comments
 * group and by the full guide view (guide and step `comments`).
 */
import { config } from '../config.ts';
import { userSummary } from './user-views.ts';
import { renderWiki } from '../domain/wiki-syntax/index.ts';
import { getUsers } from '../db/entities/user.ts';
import { commentFromItem, documentCommentsCollection, getComments, replyIds, type CommentContext, type CommentRecord } from '../db/entities/comment.ts';
import { queryPage } from '../db/paging.ts';

/** How many top-level comments a guide or step shows inline; the rest are in GET /comments. */
export const INLINE_COMMENTS = 100;

export async function commentViews(comments: CommentRecord[]) {
  const siteUrl = config().STEPWISE_SITE_URL;
  const replyLists = await Promise.all(comments.map((comment) => (comment.reply_count > 0 && !comment.parentid ? replyIds(comment.commentid) : [])));
  const replies = await getComments(replyLists.flat());
  const repliesById = new Map(replies.map((reply) => [reply.commentid, reply]));
  const authors = new Map((await getUsers([...new Set([...comments, ...replies].map((c) => c.author_userid))])).map((user) => [user.userid, user]));
  const one = (comment: CommentRecord, nested: CommentRecord[]) => {
    const author = authors.get(comment.author_userid);
    return {
      commentid: comment.commentid,
      locale: comment.locale,
      context: comment.context,
      contextid: comment.contextid,
      parentid: comment.parentid,
      author: author ? userSummary(author, siteUrl) : null,
      title: comment.title,
      text_raw: comment.text_raw,
      text_rendered: renderWiki(comment.text_raw, { siteUrl }).html,
      rating: comment.rating,
      date: comment.date,
      modified_date: comment.modified_date,
      replied_date: comment.replied_date,
      status: comment.status,
      replies: nested.map((reply): unknown => one(reply, [])),
    };
  };
  return comments.map((comment, index) =>
    one(comment, replyLists[index].map((id) => repliesById.get(id)).filter((reply): reply is CommentRecord => reply !== undefined)),
  );
}

export type CommentView = Awaited<ReturnType<typeof commentViews>>[number];

/** The first top-level comments of one document (a guide, a step), with replies, as viewed. */
export async function documentCommentViews(context: CommentContext, contextid: number): Promise<CommentView[]> {
  const items = await queryPage(documentCommentsCollection(context, contextid), { limit: INLINE_COMMENTS, offset: 0 });
  return commentViews(items.map(commentFromItem));
}
