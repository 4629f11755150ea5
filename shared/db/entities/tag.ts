/**
 * Tags. A tag: pk TAG#<tag> / sk TAG, listed alphabetically through gsi1 (gsi1pk TAGS,
 * gsi1sk <tag>); created on first use. A document's tag: pk TAGGED#<GUIDE|WIKI>#<docid> /
 * sk TAG#<tag>. Tagging writes the link, creates the tag if needed and checks that the
 * document still exists, in one transaction, so no tag hangs on a deleted document. A guide
 * also keeps a copy of its tags on its item (decision 283), written in the same transactions.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { nowSeconds } from '../../clock.ts';
import { INDEXES } from '../table.ts';
import { queryPage, type PageQuery } from '../paging.ts';
import { transactWrite, TransactionConditionFailed, type LabelledWrite } from '../transactions.ts';
import { parseStored } from '../stored-item.ts';
import * as z from 'zod/mini';
import { getGuide, guideKey } from './guide.ts';
import { LostRace, retryOnLostRace } from '../retry.ts';
import type { ServiceAuthor } from '../../domain/caller.ts';
import { serviceAuthorSchema } from './api-token.ts';

/** Who tagged: a person's userid, or null and the site API token (decision 260; 0: a token's, before it). */
export interface Tagger {
  userid: number | null;
  userid_token?: ServiceAuthor | undefined;
}

export type TaggedDocType = 'GUIDE' | 'WIKI';

/** The document a tag is put on, with the key of its item (must exist when tagging). */
export interface TagTarget {
  docType: TaggedDocType;
  docid: number;
  key: { pk: string; sk: string };
}

export const tagItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('TAG'),
  entity: z.literal('Tag'),
  tag: z.string(),
  gsi1pk: z.literal('TAGS'),
  gsi1sk: z.string(),
  created_date: z.number(),
});

export const documentTagItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('DocumentTag'),
  tag: z.string(),
  doc_type: z.string(),
  docid: z.int().check(z.positive()),
  userid: z.nullable(z.int()),
  userid_token: z.optional(serviceAuthorSchema),
  date: z.number(),
});

export function tagKey(tag: string) {
  return { pk: `TAG#${tag}`, sk: 'TAG' as const };
}

export function linkKey(target: Pick<TagTarget, 'docType' | 'docid'>, tag: string) {
  return { pk: `TAGGED#${target.docType}#${target.docid}`, sk: `TAG#${tag}` };
}

/** A tag's item as first use creates it (pure: a migration writes it directly). */
export function tagPut(tag: string, createdDate: number): LabelledWrite {
  return {
    label: 'tag',
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...tagKey(tag),
          entity: 'Tag',
          tag,
          [INDEXES.gsi1.pk]: 'TAGS',
          [INDEXES.gsi1.sk]: tag,
          created_date: createdDate,
        } satisfies z.input<typeof tagItemSchema>,
      },
    },
  };
}

/** The link putting `tag` on a document, only if it is not there yet (pure). */
export function documentTagPut(
  target: Pick<TagTarget, 'docType' | 'docid'>,
  tag: string,
  tagger: Tagger,
  date: number,
): LabelledWrite {
  return {
    label: 'link',
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...linkKey(target, tag),
          entity: 'DocumentTag',
          tag,
          doc_type: target.docType,
          docid: target.docid,
          userid: tagger.userid,
          ...(tagger.userid_token
            ? { userid_token: { tokenid: tagger.userid_token.tokenid, name: tagger.userid_token.name } }
            : {}),
          date,
        } satisfies z.input<typeof documentTagItemSchema>,
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

/**
 * Puts `tag` on the document. Returns false when it was already there. Fails with label
 * 'document' when the document is gone.
 */
export async function addTag(target: TagTarget, tag: string, tagger: Tagger): Promise<boolean> {
  const now = nowSeconds();
  try {
    await transactWrite([
      {
        label: 'tag',
        item: {
          Update: {
            TableName: tableName(),
            Key: tagKey(tag),
            UpdateExpression:
              'SET #entity = :entity, #tag = :tag, #g1pk = :g1pk, #g1sk = :tag, created_date = ' +
              'if_not_exists(created_date, :now)',
            ExpressionAttributeNames: {
              '#entity': 'entity',
              '#tag': 'tag',
              '#g1pk': INDEXES.gsi1.pk,
              '#g1sk': INDEXES.gsi1.sk,
            },
            ExpressionAttributeValues: { ':entity': 'Tag', ':tag': tag, ':g1pk': 'TAGS', ':now': now },
          },
        },
      },
      documentTagPut(target, tag, tagger, now),
      target.docType === 'GUIDE'
        ? guideTagsWrite(
            target.docid,
            'SET tags = list_append(if_not_exists(tags, :empty), :tag)',
            'attribute_exists(pk)',
            {
              ':empty': [],
              ':tag': [tag],
            },
          )
        : {
            label: 'document',
            item: {
              ConditionCheck: { TableName: tableName(), Key: target.key, ConditionExpression: 'attribute_exists(pk)' },
            },
          },
    ]);
    return true;
  } catch (error) {
    if (
      error instanceof TransactionConditionFailed &&
      error.failedLabels.length === 1 &&
      error.failedLabels[0] === 'link'
    )
      return false;
    throw error;
  }
}

/**
 * The guide item's copy of its tags (decision 283: guide lists read them from the guide), changed
 * in the tag's transaction with a `version` bump, so a guide write that read the guide before
 * retries and keeps them. Label `document`: the guide is gone (or, on removal, moved on).
 */
function guideTagsWrite(
  guideid: number,
  update: string,
  condition: string,
  values: Record<string, unknown>,
): LabelledWrite {
  return {
    label: 'document',
    item: {
      Update: {
        TableName: tableName(),
        Key: guideKey(guideid),
        UpdateExpression: `${update}, version = version + :one`,
        ConditionExpression: condition,
        ExpressionAttributeValues: { ...values, ':one': 1 },
      },
    },
  };
}

/** Takes `tag` off a guide: its link and the guide's copy, in one transaction at the guide's version. */
async function removeGuideTag(guideid: number, tag: string): Promise<boolean> {
  return retryOnLostRace(async () => {
    const guide = await getGuide(guideid, { consistent: true });
    const link: LabelledWrite = {
      label: 'link',
      item: {
        Delete: {
          TableName: tableName(),
          Key: linkKey({ docType: 'GUIDE', docid: guideid }, tag),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
    };
    try {
      await transactWrite(
        guide
          ? [
              link,
              guideTagsWrite(guideid, 'SET tags = :tags', 'version = :version', {
                ':tags': (guide.tags ?? []).filter((kept) => kept !== tag),
                ':version': guide.version,
              }),
            ]
          : [link],
      );
      return true;
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed)) throw error;
      if (error.failedLabels.includes('link')) return false;
      throw new LostRace('The guide changed while its tag was being removed');
    }
  });
}

/** Takes `tag` off the document; false when it was not there. */
export async function removeTag(target: TagTarget, tag: string): Promise<boolean> {
  if (target.docType === 'GUIDE') return removeGuideTag(target.docid, tag);
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: linkKey(target, tag),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** A document's tags, alphabetical. */
export async function listDocumentTags(
  target: Pick<TagTarget, 'docType' | 'docid'>,
  page: { limit: number; offset: number },
): Promise<string[]> {
  const query: PageQuery = { partition: `TAGGED#${target.docType}#${target.docid}`, sortPrefix: 'TAG#' };
  return (await queryPage(query, page)).map((item) => parseStored(documentTagItemSchema, item).tag);
}

/** Every tag of the site, alphabetical. */
export async function listTags(page: { limit: number; offset: number }): Promise<string[]> {
  const items = await queryPage({ index: INDEXES.gsi1, partition: 'TAGS' }, page);
  return items.map((item) => parseStored(tagItemSchema, item).tag);
}
