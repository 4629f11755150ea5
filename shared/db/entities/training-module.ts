/**
 * External training module: pk MODULE#<moduleid> / sk MODULE. Its imports are separate items
 * (module-import.ts); the module points at its `current` and `draft` import. Modules with a
 * current import are listed through gsi1 (MODULES#CURRENT, padded id), modules with a draft
 * through gsi2 (MODULES#DRAFT, padded id); the index keys exist only while the pointer does.
 * Course usage items share the partition (module-usage.ts).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../batch.ts';
import { db, tableName } from '../client.ts';
import { getItem, putItem } from '../items.ts';
import { isConditionFailed } from '../retry.ts';
import { padId } from '../keys.ts';
import { queryPage } from '../paging.ts';
import { INDEXES } from '../table.ts';
import { transactWrite } from '../transactions.ts';
import { importKey } from './module-import.ts';
import { parseStored, recordsOf, type StoredRecord } from '../stored-item.ts';
import * as z from 'zod/mini';
import { serviceAuthorSchema } from './api-token.ts';

/** A TrainingModule as its put leaves it and the version / pointer / title updates change it. */
export const trainingModuleItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('MODULE'),
  entity: z.literal('TrainingModule'),
  /** Set when the module first points at a current (gsi1) or draft (gsi2) import. */
  gsi1pk: z.optional(z.string()),
  gsi1sk: z.optional(z.string()),
  gsi2pk: z.optional(z.string()),
  gsi2sk: z.optional(z.string()),
  moduleid: z.int().check(z.positive()),
  title: z.string(),
  current_importid: z.nullable(z.int()),
  draft_importid: z.nullable(z.int()),
  /** The last provider_version_number handed out to an import of this module. */
  version_count: z.int(),
  /** null for a site API token, named by created_by_token (decision 260); 0: a token's, before it. */
  created_by: z.nullable(z.int()),
  created_by_token: z.optional(serviceAuthorSchema),
  created_date: z.number(),
  modified_date: z.number(),
});

export type TrainingModuleRecord = StoredRecord<typeof trainingModuleItemSchema>;

export function moduleKey(moduleid: number) {
  return { pk: `MODULE#${moduleid}`, sk: 'MODULE' as const };
}

const CURRENT_PARTITION = 'MODULES#CURRENT';
const DRAFT_PARTITION = 'MODULES#DRAFT';

export async function insertModule(module: TrainingModuleRecord): Promise<void> {
  if (
    !(await putItem(
      { ...moduleKey(module.moduleid), entity: 'TrainingModule', ...module } satisfies z.input<
        typeof trainingModuleItemSchema
      >,
      { ifAbsent: true },
    ))
  ) {
    throw new Error(`Training module ${module.moduleid} exists already`);
  }
}

const fromItem = recordsOf(trainingModuleItemSchema);

export async function getModule(moduleid: number): Promise<TrainingModuleRecord | undefined> {
  const item = await getItem(moduleKey(moduleid));
  return item ? fromItem(item) : undefined;
}

export async function getModules(moduleids: number[]): Promise<TrainingModuleRecord[]> {
  return (await batchGetInOrder(moduleids.map(moduleKey))).map(fromItem);
}

/** What the version-count update returns (UPDATED_NEW: the attributes it set). */
const versionCountUpdateSchema = z.pick(trainingModuleItemSchema, { version_count: true, modified_date: true });

/** The next provider_version_number of the module: 1, 2, 3 ... (atomic). */
export async function nextVersionNumber(moduleid: number, now: number): Promise<number> {
  const result = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: moduleKey(moduleid),
      UpdateExpression: 'ADD version_count :one SET modified_date = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':one': 1, ':now': now },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return parseStored(versionCountUpdateSchema, result.Attributes!).version_count;
}

export type ImportPointer = 'current' | 'draft';

/**
 * Points the module's current (or draft) at an import, in one transaction with a check that
 * the import belongs to the module and is complete. Labels: `module`, `import` (failed check;
 * its old item tells why).
 */
export async function pointAtImport(
  moduleid: number,
  importid: number,
  pointer: ImportPointer,
  now: number,
): Promise<void> {
  const index = pointer === 'current' ? INDEXES.gsi1 : INDEXES.gsi2;
  await transactWrite([
    {
      label: 'module',
      item: {
        Update: {
          TableName: tableName(),
          Key: moduleKey(moduleid),
          UpdateExpression: `SET #pointer = :importid, #ipk = :partition, #isk = :sk, modified_date = :now`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#pointer': `${pointer}_importid`, '#ipk': index.pk, '#isk': index.sk },
          ExpressionAttributeValues: {
            ':importid': importid,
            ':partition': pointer === 'current' ? CURRENT_PARTITION : DRAFT_PARTITION,
            ':sk': padId(moduleid),
            ':now': now,
          },
        },
      },
    },
    {
      label: 'import',
      item: {
        ConditionCheck: {
          TableName: tableName(),
          Key: importKey(importid),
          ConditionExpression: 'moduleid = :moduleid AND #status = :complete',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':moduleid': moduleid, ':complete': 'complete' },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    },
  ]);
}

/** Modules with a current import, by id. */
export async function listCurrentModules(page: { limit: number; offset: number }): Promise<TrainingModuleRecord[]> {
  return (await queryPage({ index: INDEXES.gsi1, partition: CURRENT_PARTITION }, page)).map(fromItem);
}

/** Modules with a draft import, by id. */
export async function listDraftModules(page: { limit: number; offset: number }): Promise<TrainingModuleRecord[]> {
  return (await queryPage({ index: INDEXES.gsi2, partition: DRAFT_PARTITION }, page)).map(fromItem);
}

/** A finished import names the module after its package when the module has no title yet. */
export async function adoptTitle(moduleid: number, title: string, now: number): Promise<void> {
  await db()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: moduleKey(moduleid),
        UpdateExpression: 'SET title = :title, modified_date = :now',
        ConditionExpression: 'attribute_exists(pk) AND title = :empty',
        ExpressionAttributeValues: { ':title': title, ':now': now, ':empty': '' },
      }),
    )
    .catch((error: Error) => {
      if (!isConditionFailed(error)) throw error;
    });
}
