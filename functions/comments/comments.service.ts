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
import { config } from '../../shared/config.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { auditActor, isAdmin, isWriterOf, serviceAuthorFields, type Caller } from '../../shared/domain/caller.ts';
import { assertCanViewGuide, canViewGuideNow } from '../../shared/content/guide-access.ts';
import { commentViews } from '../../shared/read-models/comments.ts';
import type { CommentView } from '../../shared/views/comment-views.ts';
import { selectedPage } from '../../shared/content/visible-page.ts';
import { nextId } from '../../shared/db/counters.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { appendAudit, auditSubject } from '../../shared/db/audit.ts';
import { transactWrite, TransactionConditionFailed, type LabelledWrite } from '../../shared/db/transactions.ts';
import { getGuides, getStep } from '../../shared/db/entities/guide.ts';
import { getWiki } from '../../shared/db/entities/wiki.ts';
import {
  commentFromItem,
  commentedDocumentWrites,
  commentsCollection,
  deleteCommentWrites,
  deleteReplies,
  editComment,
  getComment,
  insertComment,
  stepCommentCountWrite,
  type CommentContext,
  type CommentRecord,
} from '../../shared/db/entities/comment.ts';
import type { CommentEdit, CommentListQuery, NewComment } from './comments.schemas.ts';
import type { Created } from '../../shared/domain/client-guid.ts';
import { clientGuidHolder, createOnce } from '../../shared/db/client-guid.ts';

/** The spec's edit window: 5 minutes from the comment's date. */
export const EDIT_WINDOW_SECONDS = 5 * 60;

/** guide, step, wiki, post, info, and the plural spellings of the spec ("guides, steps ..."). */
const CONTEXTS: Record<string, CommentContext> = {
  guide: 'guide',
  guides: 'guide',
  step: 'step',
  steps: 'step',
  wiki: 'wiki',
  wikis: 'wiki',
  post: 'post',
  posts: 'post',
  info: 'info',
  infos: 'info',
};

export function parseContext(raw: string): CommentContext | undefined {
  return CONTEXTS[raw.trim().toLowerCase()];
}

function requireContext(raw: string): CommentContext {
  const context = parseContext(raw);
  if (!context) throw new NotFoundError(`Unknown comment context ${raw}: use guide, step, wiki, post or info`);
  return context;
}

/** The commented document: its title and the guide it belongs to (visibility follows it). */
interface Target {
  title: string;
  guideid: number | null;
}

async function resolveTarget(caller: Caller, context: CommentContext, contextid: number): Promise<Target> {
  switch (context) {
    case 'guide': {
      const guide = await assertCanViewGuide(caller, contextid);
      return { title: guide.title, guideid: guide.guideid };
    }
    case 'step': {
      const step = await getStep(contextid);
      if (!step) throw new NotFoundError(`No step with stepid ${contextid}`);
      const guide = await assertCanViewGuide(caller, step.guideid);
      return { title: guide.title, guideid: guide.guideid };
    }
    case 'wiki':
    case 'info': {
      const wiki = await getWiki(contextid);
      if (!wiki || (context === 'info' && wiki.namespace !== 'INFO'))
        throw new NotFoundError(`No ${context} page with wikiid ${contextid}`);
      return { title: wiki.display_title, guideid: null };
    }
    case 'post':
      return { title: '', guideid: null };
  }
}

/** Keeps the comments the caller may read: those on guides follow the guide's visibility. */
async function visibleTo(caller: Caller, comments: CommentRecord[]): Promise<CommentRecord[]> {
  const guideids = [...new Set(comments.map((comment) => comment.guideid).filter((id): id is number => id !== null))];
  const guides = new Map((await getGuides(guideids)).map((guide) => [guide.guideid, guide]));
  return comments.filter((comment) => {
    if (comment.guideid === null) return true;
    const guide = guides.get(comment.guideid);
    return guide !== undefined && canViewGuideNow(caller, guide);
  });
}

async function requireVisibleComment(caller: Caller, commentid: number): Promise<CommentRecord> {
  const comment = await getComment(commentid);
  if (!comment) throw new NotFoundError(`No comment with commentid ${commentid}`);
  if ((await visibleTo(caller, [comment])).length === 0)
    throw new ForbiddenError('You do not have access to the document of this comment');
  return comment;
}

// ---------------------------------------------------------------------------------------------

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
  const holder = offset > 0 ? undefined : await clientGuidHolder('comment', caller.userid, guid);
  if (!holder) return [];
  const comment = await getComment(Number(holder.ref));
  if (!comment) return [];
  return commentViews(await visibleTo(caller, [comment]));
}

export async function get(caller: Caller, commentid: number): Promise<CommentView> {
  const [view] = await commentViews([await requireVisibleComment(caller, commentid)]);
  return view;
}

function checkText(text: string): string {
  const trimmed = text.trim();
  // Sites open to the public take 12–1024 characters, as the real service does there.
  const [min, max] = config().STEPWISE_PUBLIC_REGISTRATION ? [12, 1024] : [1, 10_000];
  if (trimmed.length < min || trimmed.length > max)
    throw ValidationError.field('text', 'invalid', `text must be ${min} to ${max} characters`);
  return trimmed;
}

function checkLangid(langid: string | undefined): string {
  const languages = config().STEPWISE_LANGUAGES;
  if (langid === undefined) return languages[0] ?? 'en';
  if (!languages.includes(langid))
    throw ValidationError.field('langid', 'invalid', `langid must be one of: ${languages.join(', ')}`);
  return langid;
}

/**
 * Comments on a document. With a `client_guid` the caller already used: that comment (not
 * created) for the same request, 409 with it for another (decision 224).
 */
export async function create(
  caller: Caller,
  rawContext: string,
  contextid: number,
  input: NewComment,
): Promise<Created<CommentView>> {
  const { client_guid, ...request } = input;
  return createOnce({
    kind: 'comment',
    userid: caller.userid,
    guid: client_guid,
    request: { context: rawContext, contextid, ...request },
    existing: (ref) => get(caller, Number(ref)),
    make: (claim) => createComment(caller, rawContext, contextid, input, claim),
  });
}

async function createComment(
  caller: Caller,
  rawContext: string,
  contextid: number,
  input: NewComment,
  claim?: (commentid: number) => LabelledWrite,
): Promise<CommentView> {
  const context = requireContext(rawContext);
  const target = await resolveTarget(caller, context, contextid);
  const text = checkText(input.text);
  const locale = checkLangid(input.langid ?? input.langId);
  if (input.parentid) {
    const parent = await getComment(input.parentid);
    if (!parent) throw ValidationError.field('parentid', 'not_found', `No comment with commentid ${input.parentid}`);
    if (parent.context !== context || parent.contextid !== contextid) {
      throw ValidationError.field(
        'parentid',
        'invalid',
        'A reply must be on the same document as the comment it answers',
      );
    }
    if (parent.parentid)
      throw ValidationError.field(
        'parentid',
        'invalid',
        'Reply to the first comment of the thread; replies do not nest',
      );
  }
  const now = nowSeconds();
  const comment: CommentRecord = {
    commentid: await nextId('comment'),
    locale,
    context,
    contextid,
    guideid: target.guideid,
    parentid: input.parentid ?? null,
    author_userid: caller.userid,
    ...serviceAuthorFields(caller),
    title: target.title,
    text_raw: text,
    rating: 0,
    date: now,
    modified_date: now,
    replied_date: 0,
    status: 'public',
    reply_count: 0,
  };
  try {
    const sideWrites = commentedDocumentWrites(context, contextid);
    await insertComment(comment, claim ? [...sideWrites, claim(comment.commentid)] : sideWrites);
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('document'))
      throw new NotFoundError(`The ${context} ${contextid} no longer exists`);
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('parent')) {
      throw ValidationError.field('parentid', 'not_found', `Comment ${input.parentid} no longer exists`);
    }
    throw error;
  }
  return (await commentViews([comment]))[0];
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
