/**
 * SCORM attempts (decision 271): one item per learner, module and attempt number holding every
 * SCO's CMI data and what the server judged of it.
 * - pk ATTEMPTS#MODULE#<moduleid>#USER#<userid> / sk ATTEMPT#<padded attempt>: a learner's
 *   attempts at a module, newest last (read descending for the latest);
 * - gsi1 ATTEMPTS#MODULE#<moduleid> / <padded userid>#<padded attempt>: every learner's attempts
 *   at a module (a manager's view).
 * Every write is a Put on condition of the version it replaces (absent for version 1), so two
 * tabs or a retried commit never overwrite what the other kept: the loser reads the current item.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { queryAll, queryFirst, queryPage, type Page } from '../paging.ts';
import { isConditionFailed } from '../retry.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import { INDEXES } from '../table.ts';

const scoStateSchema = z.object({
  /** Flattened CMI data as the runtime last committed it. */
  cmi: z.record(z.string(), z.string()),
  /** The SCO was launched in this attempt (a later launch is not ab-initio). */
  launched: z.boolean(),
  /** cmi.core.exit / cmi.exit of its last commit. */
  exit: z.string(),
  /** The runtime ended the SCO's session (LMSFinish / Terminate): commits are refused until it is launched again. */
  terminated: z.boolean(),
  /** Seconds of its sessions that ended (total_time). */
  total_seconds: z.number(),
  completion_status: z.string(),
  success_status: z.string(),
  score_raw: z.nullable(z.number()),
  score_scaled: z.nullable(z.number()),
  satisfied: z.boolean(),
});

const objectiveStatusSchema = z.object({ satisfied: z.nullable(z.boolean()), measure: z.nullable(z.number()) });

/**
 * SCORM 2004 sequencing state beside the SCOs' data (decision 335): what the rules read that the
 * CMI data does not hold, and what the last Terminate's navigation request led to.
 */
const sequencingStateSchema = z.object({
  /** Attempts on each activity (SCO or cluster) in this attempt of the module. */
  attempts: z.record(z.string(), z.int().check(z.nonnegative())),
  /** Global objectives (mapInfo targets) by id; carried into the next attempt when global to the system. */
  globals: z.record(z.string(), objectiveStatusSchema),
  /** The SCO launched last: the clusters holding it are in their attempt (absent on attempts kept before). */
  current: z.optional(z.string()),
  /** What the sequencer delivers after the last Terminate with a navigation request. */
  delivery: z.nullable(
    z.object({
      from: z.string(),
      request: z.string(),
      deliver: z.nullable(z.string()),
      end: z.boolean(),
      message: z.nullable(z.string()),
    }),
  ),
});

export const moduleAttemptItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('ModuleAttempt'),
  gsi1pk: z.string(),
  gsi1sk: z.string(),
  moduleid: z.int().check(z.positive()),
  userid: z.int().check(z.positive()),
  attempt: z.int().check(z.positive()),
  importid: z.int().check(z.positive()),
  standard: z.enum(['scorm12', 'scorm2004']),
  version: z.int().check(z.positive()),
  scos: z.record(z.string(), scoStateSchema),
  completion_status: z.string(),
  success_status: z.string(),
  score_raw: z.nullable(z.number()),
  score_scaled: z.nullable(z.number()),
  total_seconds: z.number(),
  satisfied: z.boolean(),
  /** SCORM 2004 only; absent on attempts kept before sequencing rules were evaluated. */
  sequencing: z.optional(sequencingStateSchema),
  /** When the module was first satisfied in this attempt (its stage was completed then). */
  satisfied_date: z.nullable(z.number()),
  created_date: z.number(),
  modified_date: z.number(),
});

export type ModuleAttemptRecord = StoredRecord<typeof moduleAttemptItemSchema>;
export type ScoState = z.output<typeof scoStateSchema>;
export type AttemptSequencing = z.output<typeof sequencingStateSchema>;

const fromItem = recordsOf(moduleAttemptItemSchema);

function partition(moduleid: number, userid: number): string {
  return `ATTEMPTS#MODULE#${moduleid}#USER#${userid}`;
}

export function attemptKey(moduleid: number, userid: number, attempt: number) {
  return { pk: partition(moduleid, userid), sk: `ATTEMPT#${padId(attempt)}` } as const;
}

function attemptItem(record: ModuleAttemptRecord): z.input<typeof moduleAttemptItemSchema> {
  return {
    ...attemptKey(record.moduleid, record.userid, record.attempt),
    entity: 'ModuleAttempt',
    [INDEXES.gsi1.pk]: `ATTEMPTS#MODULE#${record.moduleid}`,
    [INDEXES.gsi1.sk]: `${padId(record.userid)}#${padId(record.attempt)}`,
    ...record,
  } as z.input<typeof moduleAttemptItemSchema>;
}

export async function getAttempt(
  moduleid: number,
  userid: number,
  attempt: number,
): Promise<ModuleAttemptRecord | undefined> {
  const item = await getItem(attemptKey(moduleid, userid, attempt), { consistent: true });
  return item ? recordFrom(moduleAttemptItemSchema, item) : undefined;
}

export async function latestAttempt(moduleid: number, userid: number): Promise<ModuleAttemptRecord | undefined> {
  const item = await queryFirst({
    partition: partition(moduleid, userid),
    sortPrefix: 'ATTEMPT#',
    descending: true,
    consistent: true,
  });
  return item ? fromItem(item) : undefined;
}

/** A learner's attempts at a module, newest first (few: one per sitting that ended). */
export async function listUserAttempts(moduleid: number, userid: number): Promise<ModuleAttemptRecord[]> {
  return (await queryAll({ partition: partition(moduleid, userid), sortPrefix: 'ATTEMPT#', descending: true })).map(
    fromItem,
  );
}

/** Every learner's attempts at a module, by userid then attempt. */
export async function listModuleAttempts(moduleid: number, page: Page): Promise<ModuleAttemptRecord[]> {
  return (await queryPage({ index: INDEXES.gsi1, partition: `ATTEMPTS#MODULE#${moduleid}` }, page)).map(fromItem);
}

/**
 * Writes the attempt on condition that the stored one is still at `record.version - 1` (absent
 * for version 1). Lost: the current record (undefined if it vanished), for the caller's 409.
 */
export async function putAttempt(
  record: ModuleAttemptRecord,
): Promise<{ written: true } | { written: false; current: ModuleAttemptRecord | undefined }> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: attemptItem(record),
        ...(record.version === 1
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : {
              ConditionExpression: '#version = :expected',
              ExpressionAttributeNames: { '#version': 'version' },
              ExpressionAttributeValues: { ':expected': record.version - 1 },
            }),
      }),
    );
    return { written: true };
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    return { written: false, current: await getAttempt(record.moduleid, record.userid, record.attempt) };
  }
}

/** The site file writes an attempt as it was (decision 271). */
export function attemptImportItem(record: ModuleAttemptRecord): Record<string, unknown> {
  return attemptItem(record);
}
