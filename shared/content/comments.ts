/**
 * Comments: who may read and write them, and their create (docs/wikis.md). The create lives
 * here, not in the comments group, because the comments route and the offline journal
 * (`POST /user/sync`, decision 225) make a comment with the same code, exactly once by its
 * `client_guid` (decision 224). The caller's answer is shaped by `present` (the route's view).
 */
import { config } from '../config.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../domain/errors.ts';
import { ownerKey, serviceAuthorFields, type Caller } from '../domain/caller.ts';
import type { Created } from '../domain/client-guid.ts';
import { nextId } from '../db/counters.ts';
import { nowSeconds } from '../clock.ts';
import { TransactionConditionFailed, type LabelledWrite } from '../db/transactions.ts';
import { createOnce } from '../db/client-guid.ts';
import { getGuides } from '../db/entities/guide.ts';
import { getStep } from '../db/entities/step.ts';
import { getWiki } from '../db/entities/wiki.ts';
import {
  commentedDocumentWrites,
  getComment,
  insertComment,
  type CommentContext,
  type CommentRecord,
} from '../db/entities/comment.ts';
import { assertCanViewGuide, canViewGuideNow } from './guide-access.ts';

/** What a new comment says (the route's body). */
export interface NewCommentInput {
  text: string;
  parentid?: number | null;
  langid?: string;
  langId?: string;
  /** The device's own id of the comment, unique per user (decision 224). */
  client_guid?: string;
}

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
export async function visibleTo(caller: Caller, comments: CommentRecord[]): Promise<CommentRecord[]> {
  const guideids = [...new Set(comments.map((comment) => comment.guideid).filter((id): id is number => id !== null))];
  const guides = new Map((await getGuides(guideids)).map((guide) => [guide.guideid, guide]));
  return comments.filter((comment) => {
    if (comment.guideid === null) return true;
    const guide = guides.get(comment.guideid);
    return guide !== undefined && canViewGuideNow(caller, guide);
  });
}

export async function requireVisibleComment(caller: Caller, commentid: number): Promise<CommentRecord> {
  const comment = await getComment(commentid);
  if (!comment) throw new NotFoundError(`No comment with commentid ${commentid}`);
  if ((await visibleTo(caller, [comment])).length === 0)
    throw new ForbiddenError('You do not have access to the document of this comment');
  return comment;
}

export function checkText(text: string): string {
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
export async function createComment<V>(
  caller: Caller,
  rawContext: string,
  contextid: number,
  input: NewCommentInput,
  present: (comment: CommentRecord) => Promise<V>,
): Promise<Created<V>> {
  const { client_guid, ...request } = input;
  return createOnce({
    kind: 'comment',
    userid: ownerKey(caller),
    guid: client_guid,
    request: { context: rawContext, contextid, ...request },
    existing: async (ref) => present(await requireVisibleComment(caller, Number(ref))),
    make: async (claim) => present(await insertNewComment(caller, rawContext, contextid, input, claim)),
  });
}

async function insertNewComment(
  caller: Caller,
  rawContext: string,
  contextid: number,
  input: NewCommentInput,
  claim?: (commentid: number) => LabelledWrite,
): Promise<CommentRecord> {
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
  return comment;
}
