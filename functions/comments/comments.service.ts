/**
 * Comments on guides, steps, wiki pages, info pages and posts. Rules (docs/wikis.md):
 * - A comment on a guide or step can be read and written by whoever can see the guide; wiki
 *   and info comments by any signed-in user. Posts are not stored by Stepwise, so a post
 *   comment's contextid is not checked.
 * - Replies hang under a top-level comment of the same document (one level, as on the real
 *   service); deleting a comment deletes its replies.
 * - Only the author edits, within 5 minutes of the comment's date (a condition of the update:
 *   403 after that). The author deletes; Admins may delete anyone's comment, and that
 *   moderation goes on the audit trail in the same transaction.
 */
import { ForbiddenError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { auditActor, isAdmin, isWriterOf, ownerKey, type Caller } from '../../shared/domain/caller.ts';
import { commentViews } from '../../shared/read-models/comments.ts';
import type { CommentView } from '../../shared/views/comment-views.ts';
import { selectedPage } from '../../shared/content/visible-page.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { appendAudit, auditSubject } from '../../shared/db/audit.ts';
import { transactWrite, TransactionConditionFailed, type LabelledWrite } from '../../shared/db/transactions.ts';
import {
  commentFromItem,
  commentsCollection,
  deleteCommentWrites,
  deleteReplies,
  editComment,
  getComment,
  stepCommentCountWrite,
  type CommentRecord,
} from '../../shared/db/entities/comment.ts';
import {
  checkText,
  createComment,
  parseContext,
  requireVisibleComment,
  visibleTo,
} from '../../shared/content/comments.ts';
import type { CommentEdit, CommentListQuery, NewComment } from './comments.schemas.ts';
import type { Created } from '../../shared/domain/client-guid.ts';
import { clientGuidHolder } from '../../shared/db/client-guid.ts';

/** The spec's edit window: 5 minutes from the comment's date. */
export const EDIT_WINDOW_SECONDS = 5 * 60;

const viewOf = async (comment: CommentRecord): Promise<CommentView> => (await commentViews([comment]))[0];

/**
 * Comments on a document (shared/content/comments.ts, also the journal's). With a `client_guid`
 * the caller already used: that comment (not created) for the same request, 409 with it for
 * another (decision 224).
 */
export function create(
  caller: Caller,
  rawContext: string,
  contextid: number,
  input: NewComment,
): Promise<Created<CommentView>> {
  return createComment(caller, rawContext, contextid, input, viewOf);
}

/** Top-level comments by commentid (replies nested), those the caller may read. */
export async function list(caller: Caller, query: CommentListQuery): Promise<CommentView[]> {
  if (query.client_guid !== undefined) return commentOfGuid(caller, query.client_guid, query.offset);
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (query.createdSince !== undefined) {
    conditions.push('#date >= :created');
    names['#date'] = 'date';
    values[':created'] = query.createdSince;
  }
  if (query.modifiedSince !== undefined) {
    conditions.push('modified_date >= :modified');
    values[':modified'] = query.modifiedSince;
  }
  if (query.context !== undefined) {
    const context = parseContext(query.context);
    if (!context)
      throw ValidationError.field('context', 'invalid', 'context must be one of guide, step, wiki, post, info');
    conditions.push('#context = :context');
    names['#context'] = 'context';
    values[':context'] = context;
  }
  if (query.langid !== undefined) {
    conditions.push('locale = :langid');
    values[':langid'] = query.langid;
  }
  const filter = conditions.length
    ? {
        FilterExpression: conditions.join(' AND '),
        ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
        ExpressionAttributeValues: values,
      }
    : undefined;
  const comments = await selectedPage(
    { ...commentsCollection, descending: query.order === 'DESC', filter },
    query,
    async (items) => visibleTo(caller, items.map(commentFromItem)),
  );
  return commentViews(comments);
}

/** The caller's comment made under a client guid, as a list of at most one (decision 224). */
async function commentOfGuid(caller: Caller, guid: string, offset: number): Promise<CommentView[]> {
  const holder = offset > 0 ? undefined : await clientGuidHolder('comment', ownerKey(caller), guid);
  if (!holder) return [];
  const comment = await getComment(Number(holder.ref));
  if (!comment) return [];
  return commentViews(await visibleTo(caller, [comment]));
}

export async function get(caller: Caller, commentid: number): Promise<CommentView> {
  const [view] = await commentViews([await requireVisibleComment(caller, commentid)]);
  return view;
}

export async function edit(caller: Caller, commentid: number, input: CommentEdit): Promise<CommentView> {
  const text = checkText(input.text);
  const now = nowSeconds();
  const result = await editComment(commentid, {
    userid: caller.userid,
    ...(caller.service ? { tokenid: caller.service.tokenid } : {}),
    text_raw: text,
    modified_date: now,
    notBefore: now - EDIT_WINDOW_SECONDS,
  });
  if (result === 'missing') throw new NotFoundError(`No comment with commentid ${commentid}`);
  if (result === 'not_owner') throw new ForbiddenError('Only the author of a comment may edit it');
  if (result === 'too_late')
    throw new ForbiddenError(`A comment can only be edited within ${EDIT_WINDOW_SECONDS / 60} minutes of posting`);
  return (await commentViews([result]))[0];
}

/** Step comments are counted on the step; other documents keep no count. */
function counterWrites(comment: CommentRecord, removed: number): LabelledWrite[] {
  return comment.context === 'step' ? [stepCommentCountWrite(comment.contextid, -removed)] : [];
}

/**
 * Deletes a comment and its replies. The author may; an Admin may delete anyone's, which is
 * appended to the audit trail of the comment and of its author in the same transaction.
 */
export async function remove(caller: Caller, commentid: number): Promise<void> {
  const comment = await requireVisibleComment(caller, commentid);
  const own = isWriterOf(caller, { userid: comment.author_userid, service_author: comment.service_author });
  if (!own && !isAdmin(caller)) throw new ForbiddenError('Only the author of a comment (or an Admin) may delete it');
  const attempt = async (withCounter: boolean, withParent: boolean) => {
    let writes = deleteCommentWrites(comment, own ? caller.userid : undefined);
    if (!withParent) writes = writes.filter((write) => write.label !== 'parent');
    if (withCounter) writes.push(...counterWrites(comment, 1));
    if (own) await transactWrite(writes);
    else {
      await appendAudit(
        {
          action: 'comment.deleted_by_admin',
          ...auditActor(caller),
          subjects: [
            auditSubject.comment(comment.commentid),
            comment.service_author
              ? auditSubject.apiToken(comment.service_author.tokenid)
              : auditSubject.user(comment.author_userid),
          ],
          details: {
            commentid: comment.commentid,
            context: comment.context,
            contextid: comment.contextid,
            parentid: comment.parentid,
            text_raw: comment.text_raw,
          },
        },
        writes,
      );
    }
  };
  try {
    await attempt(true, true);
  } catch (error) {
    if (!(error instanceof TransactionConditionFailed)) throw error;
    if (error.failedLabels.includes('comment')) throw new NotFoundError(`No comment with commentid ${commentid}`);
    // The step or the parent thread went away meanwhile: nothing left to count on them.
    await attempt(!error.failedLabels.includes('document'), !error.failedLabels.includes('parent'));
  }
  if (!comment.parentid && comment.reply_count > 0) {
    const removed = await deleteReplies(comment.commentid);
    if (removed > 0 && comment.context === 'step')
      await transactWrite(counterWrites(comment, removed)).catch((error) => {
        // The step went away meanwhile: no count left to correct. Anything else (throttling,
        // a network failure) is a real failure and is not hidden.
        if (!(error instanceof TransactionConditionFailed && error.failedLabels.includes('document'))) throw error;
      });
  }
}
