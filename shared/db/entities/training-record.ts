/**
 * A trainee's last completion of a stage document: pk USER#<userid> /
 * sk TRAINDOC#<doctype>#<padded docid>, one item per (trainee, document), replaced when a new
 * attempt starts and guarded by `version`. Every course stage pointing at the document reads
 * it (the stage rule then decides per stage: strictness, recurrence, assessments). The
 * document's trainees are listed through gsi1 (TRAINDOC#<doctype>#<docid>, padded userid),
 * so a new release can refresh exactly the people it may affect. Earlier attempts live on in
 * the audit trail (every change is appended there in the same transaction).
 */
import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { INDEXES } from '../table.ts';
import { batchGetInOrder } from '../batch.ts';
import { queryChunks } from '../paging.ts';
import type { LabelledWrite } from '../transactions.ts';
import type { StageDoctype } from './course.ts';
import { parseStored, recordFrom, type StoredRecord } from '../stored-item.ts';
import * as z from 'zod/mini';

export interface DocRef {
  doctype: StageDoctype;
  docid: number;
}

/** A StageCompletion, put whole on every change. */
export const stageCompletionItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('StageCompletion'),
  gsi1pk: z.string(),
  gsi1sk: z.string(),
  course_assignment_stage_completionid: z.int().check(z.positive()),
  userid: z.int().check(z.positive()),
  doctype: z.enum(['guide', 'wiki', 'external_training_module']),
  docid: z.int().check(z.positive()),
  /** The document's revision the trainee completed (or started, while in progress). */
  course_stage_doc_revisionid: z.nullable(z.int()),
  /** Set when a manager completed the document on the trainee's behalf. */
  manager_override_userid: z.nullable(z.int()),
  init_date: z.number(),
  end_date: z.nullable(z.number()),
  work_log_entryid: z.nullable(z.int()),
  /** The document's latest release when the trainee completed it (null: none then). */
  release_major: z.nullable(z.int()),
  release_minor: z.nullable(z.int()),
  /** Set when a manager invalidated this completion. */
  invalidated_at: z.nullable(z.number()),
  invalidated_by: z.nullable(z.int()),
  version: z.int(),
});

export type CompletionRecord = StoredRecord<typeof stageCompletionItemSchema>;

export function completionKey(userid: number, doc: DocRef) {
  return { pk: `USER#${userid}`, sk: `TRAINDOC#${doc.doctype}#${padId(doc.docid)}` };
}

export const docKeyOf = (doc: DocRef) => `${doc.doctype}#${doc.docid}`;

function fromItem(item: Record<string, unknown>): CompletionRecord {
  return recordFrom(stageCompletionItemSchema, item);
}

/**
 * Writes `record` as the trainee's last completion of its document, on condition that the
 * stored one is still `expectedVersion` (null: there was none). Label completion.
 */
export function completionWrite(record: CompletionRecord, expectedVersion: number | null): LabelledWrite {
  return {
    label: 'completion',
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...completionKey(record.userid, record),
          entity: 'StageCompletion',
          [INDEXES.gsi1.pk]: `TRAINDOC#${record.doctype}#${record.docid}`,
          [INDEXES.gsi1.sk]: padId(record.userid),
          ...record,
        } satisfies z.input<typeof stageCompletionItemSchema>,
        ConditionExpression: expectedVersion === null ? 'attribute_not_exists(pk)' : 'version = :version',
        ExpressionAttributeValues: expectedVersion === null ? undefined : { ':version': expectedVersion },
      },
    },
  };
}

export async function getCompletion(userid: number, doc: DocRef): Promise<CompletionRecord | undefined> {
  const item = await getItem(completionKey(userid, doc), { consistent: true });
  return item ? fromItem(item) : undefined;
}

/** Last completions for every (user, document) pair asked for; absent pairs are left out. */
export async function getCompletions(pairs: Array<{ userid: number; doc: DocRef }>): Promise<CompletionRecord[]> {
  return (await batchGetInOrder(pairs.map((pair) => completionKey(pair.userid, pair.doc)))).map(fromItem);
}

/** Users with a completion (of any state) of the document, 100 at a time. */
export async function* documentTraineeChunks(doc: DocRef): AsyncGenerator<number[]> {
  for await (const items of queryChunks(
    { index: INDEXES.gsi1, partition: `TRAINDOC#${doc.doctype}#${doc.docid}` },
    100,
  )) {
    yield items.map((item) => parseStored(stageCompletionItemSchema, item).userid);
  }
}
