/**
 * Comment: pk COMMENT#<commentid> / sk COMMENT. A top-level comment is listed site-wide through
 * gsi1 (gsi1pk COMMENTS, gsi1sk <padded commentid>) and per document through gsi2
 * (gsi2pk COMMENTS#<context>#<contextid>, same sort key). A reply (parentid set) is reached
 * through its parent: a link item pk COMMENT#<parentid> / sk REPLY#<padded commentid>, read
 * with a consistent Query, so deleting a thread finds every reply. The parent counts its
 * replies and keeps the date of the latest one (replied_date). The edit window and ownership
 * are conditions of the update itself, never a read-then-write.
 */
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { parseStored, recordFrom, type StoredRecordAs } from '../stored-item.ts';
import { INDEXES } from '../table.ts';
import { queryAll, type PageQuery } from '../paging.ts';
import { batchGetInOrder } from '../batch.ts';
import { transactWrite, type LabelledWrite } from '../transactions.ts';
import { guideKey } from './guide.ts';
import { stepKey } from './step.ts';
import { wikiKey } from './wiki.ts';
import * as z from 'zod/mini';
import { serviceAuthorSchema } from './api-token.ts';

export type CommentContext = 'guide' | 'step' | 'wiki' | 'post' | 'info';

/** A Comment item as toItem writes it and the reply / edit updates leave it (plain). */
export const commentItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('COMMENT'),
  entity: z.literal('Comment'),
  gsi1pk: z.optional(z.literal('COMMENTS')),
  gsi1sk: z.optional(z.string()),
  gsi2pk: z.optional(z.string()),
  gsi2sk: z.optional(z.string()),
  commentid: z.int().check(z.positive()),
  locale: z.string(),
  context: z.enum(['guide', 'step', 'wiki', 'post', 'info']),
  contextid: z.int(),
  /** The guide of a guide or step comment (visibility follows the guide); 0 for none. */
  guideid: z.int(),
  /** 0 for none. */
  parentid: z.int(),
  author_userid: z.int(),
  /** The title of the commented document when the comment was written. */
  title: z.string(),
  text_raw: z.string(),
  rating: z.number(),
  date: z.number(),
  modified_date: z.number(),
  /** Date of the latest reply; 0 without replies. */
  replied_date: z.number(),
  status: z.enum(['public', 'private']),
  reply_count: z.int(),
  /** Written by a site API token (author_userid 0): which one (decision 244). */
  service_author: z.optional(serviceAuthorSchema),
});

/** As read (commentFromItem): a guide or parent id 0 (none) reads as null. */
export type CommentRecord = StoredRecordAs<
  typeof commentItemSchema,
  { guideid: number | null; parentid: number | null }
>;

export const commentReplyItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('CommentReply'),
  commentid: z.int().check(z.positive()),
});

export function commentKey(commentid: number) {
  return { pk: `COMMENT#${commentid}`, sk: 'COMMENT' } as const;
}

export function replyLinkKey(parentid: number, commentid: number) {
  return { pk: `COMMENT#${parentid}`, sk: `REPLY#${padId(commentid)}` };
}

/** Every top-level comment of the site, by commentid. */
export const commentsCollection: PageQuery = { index: INDEXES.gsi1, partition: 'COMMENTS' };

/** Top-level comments of one document, by commentid. */
export function documentCommentsCollection(context: CommentContext, contextid: number): PageQuery {
  return { index: INDEXES.gsi2, partition: `COMMENTS#${context}#${contextid}` };
}

export function commentFromItem(item: Record<string, unknown>): CommentRecord {
  const record = recordFrom(commentItemSchema, item);
  return { ...record, parentid: record.parentid || null, guideid: record.guideid || null };
}

function toItem(comment: CommentRecord): z.input<typeof commentItemSchema> {
  const sortKey = padId(comment.commentid);
  const listed = comment.parentid
    ? {}
    : {
        [INDEXES.gsi1.pk]: 'COMMENTS' as const,
        [INDEXES.gsi1.sk]: sortKey,
        [INDEXES.gsi2.pk]: `COMMENTS#${comment.context}#${comment.contextid}`,
        [INDEXES.gsi2.sk]: sortKey,
      };
  return {
    ...commentKey(comment.commentid),
    entity: 'Comment',
    ...listed,
    ...comment,
    parentid: comment.parentid ?? 0,
    guideid: comment.guideid ?? 0,
  };
}

/**
 * The items of a new comment (pure: a migration passes the source's ids). A reply also writes its
 * link and moves the parent's reply count and replied_date; the parent must still exist and be
 * top-level (label 'parent').
 */
export function commentCreateWrites(comment: CommentRecord): LabelledWrite[] {
  const writes: LabelledWrite[] = [
    {
      label: 'comment',
      item: { Put: { TableName: tableName(), Item: toItem(comment), ConditionExpression: 'attribute_not_exists(pk)' } },
    },
  ];
  if (comment.parentid) {
    writes.push(
      {
        label: 'reply-link',
        item: {
          Put: {
            TableName: tableName(),
            Item: {
              ...replyLinkKey(comment.parentid, comment.commentid),
              entity: 'CommentReply',
              commentid: comment.commentid,
            } satisfies z.input<typeof commentReplyItemSchema>,
          },
        },
      },
      {
        label: 'parent',
        item: {
          Update: {
            TableName: tableName(),
            Key: commentKey(comment.parentid),
            UpdateExpression: 'ADD reply_count :one SET replied_date = :date',
            ConditionExpression: 'attribute_exists(pk) AND parentid = :none',
            ExpressionAttributeValues: { ':one': 1, ':date': comment.date, ':none': 0 },
          },
        },
      },
    );
  }
  return writes;
}

/** Writes a new comment with `sideWrites` (the commented document's check or counter). */
export async function insertComment(comment: CommentRecord, sideWrites: LabelledWrite[]): Promise<void> {
  await transactWrite([...commentCreateWrites(comment), ...sideWrites]);
}

/**
 * The writes that tie a new comment to its document, label 'document': the guide or wiki page
 * must still exist, and a step counts one more comment (comment_count on the step item).
 * Posts are not stored here, so nothing is checked.
 */
export function commentedDocumentWrites(context: CommentContext, contextid: number): LabelledWrite[] {
  switch (context) {
    case 'step':
      return [stepCommentCountWrite(contextid, 1)];
    case 'guide':
      return [existsCheck(guideKey(contextid))];
    case 'wiki':
    case 'info':
      return [existsCheck(wikiKey(contextid))];
    case 'post':
      return [];
  }
}

function existsCheck(key: { pk: string; sk: string }): LabelledWrite {
  return {
    label: 'document',
    item: { ConditionCheck: { TableName: tableName(), Key: key, ConditionExpression: 'attribute_exists(pk)' } },
  };
}

/** Moves a step's comment_count (label 'document'; the step must exist). */
export function stepCommentCountWrite(stepid: number, delta: number): LabelledWrite {
  return {
    label: 'document',
    item: {
      Update: {
        TableName: tableName(),
        Key: stepKey(stepid),
        UpdateExpression: 'ADD comment_count :delta',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':delta': delta },
      },
    },
  };
}

export async function getComment(commentid: number): Promise<CommentRecord | undefined> {
  const item = await getItem(commentKey(commentid));
  return item ? commentFromItem(item) : undefined;
}

export async function getComments(commentids: number[]): Promise<CommentRecord[]> {
  return (await batchGetInOrder(commentids.map(commentKey))).map(commentFromItem);
}

/** Ids of a comment's replies, oldest first (consistent: a reply just written is seen). */
export async function replyIds(parentid: number): Promise<number[]> {
  const links = await queryAll({ partition: `COMMENT#${parentid}`, sortPrefix: 'REPLY#' });
  return links.map((link) => parseStored(commentReplyItemSchema, link).commentid);
}

export type EditRefusal = 'missing' | 'not_owner' | 'too_late';

/**
 * Replaces the text if the caller wrote the comment and its date is not before `notBefore`,
 * in one conditional update. Returns the updated comment, or why it was refused.
 */
export async function editComment(
  commentid: number,
  edit: { userid: number; tokenid?: string; text_raw: string; modified_date: number; notBefore: number },
): Promise<CommentRecord | EditRefusal> {
  // A token edits only what it wrote itself, not every comment of userid 0 (decision 244).
  const byToken = edit.tokenid === undefined ? '' : ' AND service_author.tokenid = :tokenid';
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: commentKey(commentid),
        UpdateExpression: 'SET text_raw = :text, modified_date = :now',
        ConditionExpression: `attribute_exists(pk) AND author_userid = :userid${byToken} AND #date >= :notBefore`,
        ExpressionAttributeNames: { '#date': 'date' },
        ExpressionAttributeValues: {
          ':text': edit.text_raw,
          ':now': edit.modified_date,
          ':userid': edit.userid,
          ':notBefore': edit.notBefore,
          ...(edit.tokenid === undefined ? {} : { ':tokenid': edit.tokenid }),
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return commentFromItem(result.Attributes!);
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    if (!error.Item) return 'missing';
    const old = parseStored(commentItemSchema, unmarshall(error.Item));
    const owner = old.author_userid === edit.userid && old.service_author?.tokenid === edit.tokenid;
    return owner ? 'too_late' : 'not_owner';
  }
}

/**
 * The writes that delete a comment (its author must still be `expectedAuthor` when given;
 * label 'comment'), its reply link, and its share of the parent's reply count. Pass them to
 * transactWrite, or to appendAudit when the deletion must be on record.
 */
export function deleteCommentWrites(comment: CommentRecord, expectedAuthor?: number): LabelledWrite[] {
  const writes: LabelledWrite[] = [
    {
      label: 'comment',
      item: {
        Delete: {
          TableName: tableName(),
          Key: commentKey(comment.commentid),
          ConditionExpression:
            expectedAuthor === undefined ? 'attribute_exists(pk)' : 'attribute_exists(pk) AND author_userid = :userid',
          ExpressionAttributeValues: expectedAuthor === undefined ? undefined : { ':userid': expectedAuthor },
        },
      },
    },
  ];
  if (comment.parentid) {
    writes.push(
      {
        label: 'reply-link',
        item: { Delete: { TableName: tableName(), Key: replyLinkKey(comment.parentid, comment.commentid) } },
      },
      {
        label: 'parent',
        item: {
          Update: {
            TableName: tableName(),
            Key: commentKey(comment.parentid),
            UpdateExpression: 'ADD reply_count :minusOne',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':minusOne': -1 },
          },
        },
      },
    );
  }
  return writes;
}

/** Deletes the replies of a deleted thread (their parent is gone, so no new ones can come). */
export async function deleteReplies(parentid: number): Promise<number> {
  const ids = await replyIds(parentid);
  for (const commentid of ids) {
    await db().send(new DeleteCommand({ TableName: tableName(), Key: commentKey(commentid) }));
    await db().send(new DeleteCommand({ TableName: tableName(), Key: replyLinkKey(parentid, commentid) }));
  }
  return ids.length;
}
