/**
 * A transaction part that holds only while a document (guide or wiki page) is still at the
 * revision a signature or review names. Signing and reviewing carry it, so a record can never
 * be written for content that changed meanwhile: the write fails with label `document`.
 */
import { tableName } from '../client.ts';
import type { LabelledWrite } from '../transactions.ts';
import type { Doctype } from '../../domain/doctypes.ts';
import { guideKey } from './guide.ts';
import { wikiKey } from './wiki.ts';

export function documentRevisionCheck(doctype: Doctype, docid: number, revisionid: number): LabelledWrite {
  return {
    label: 'document',
    item: {
      ConditionCheck: {
        TableName: tableName(),
        Key: doctype === 'guide' ? guideKey(docid) : wikiKey(docid),
        ConditionExpression: 'attribute_exists(pk) AND #revisionid = :revisionid',
        ExpressionAttributeNames: { '#revisionid': 'revisionid' },
        ExpressionAttributeValues: { ':revisionid': revisionid },
      },
    },
  };
}

/** Holds while the document exists (label `exists:<doctype>#<docid>`). */
export function documentExistsCheck(doctype: Doctype, docid: number): LabelledWrite {
  return {
    label: `exists:${doctype}#${docid}`,
    item: {
      ConditionCheck: {
        TableName: tableName(),
        Key: doctype === 'guide' ? guideKey(docid) : wikiKey(docid),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
  };
}
