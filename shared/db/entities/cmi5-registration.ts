/**
 * cmi5 registrations (docs/lrs.md, decision 310): one per learner and cmi5 module launch series,
 * holding what the LMS judged of each AU (completed, passed, failed, waived, satisfied) and of the
 * blocks and the course. pk CMI5REG#<registration> / sk CMI5REG; gsi1 CMI5REGS#<moduleid>#<userid>
 * / <padded created>#<registration>: a learner's registrations for a module, newest last. Every
 * write is a Put on condition of the version it replaces, so two sessions' statements never
 * overwrite each other's judgement: the loser reads again.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { db, tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { queryAll, queryFirst } from '../paging.ts';
import { isConditionFailed } from '../retry.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import { INDEXES } from '../table.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const cmi5AuStatusSchema = z.object({
  completed: z.boolean(),
  passed: z.boolean(),
  failed: z.boolean(),
  waived: z.boolean(),
  satisfied: z.boolean(),
  /** The manager who waived the AU (POST …/waive; absent: not waived, or before writers were kept). */
  waived_by: z.optional(z.int().check(z.positive())),
});

export const cmi5RegistrationItemSchema = z.strictObject({
  pk: z.string().check(z.regex(/^CMI5REG#[0-9a-f-]{36}$/)),
  sk: z.literal('CMI5REG'),
  entity: z.literal('Cmi5Registration'),
  gsi1pk: z.string(),
  gsi1sk: z.string(),
  registration: z.string().check(z.regex(UUID)),
  moduleid: z.int().check(z.positive()),
  importid: z.int().check(z.positive()),
  course_id: z.string(),
  userid: z.int().check(z.positive()),
  /** The learner's Agent as JSON, as every launch of the registration names it. */
  actor: z.string(),
  version: z.int().check(z.positive()),
  aus: z.record(z.string(), cmi5AuStatusSchema),
  satisfied_blocks: z.array(z.string()),
  course_satisfied: z.boolean(),
  created: z.number(),
  /** Who launched it: the learner from the player, an Admin by POST /admin/cmi5/launches (absent: made before). */
  created_by: z.optional(z.int().check(z.positive())),
});

export type Cmi5RegistrationRecord = StoredRecord<typeof cmi5RegistrationItemSchema>;
export type Cmi5AuStatus = z.output<typeof cmi5AuStatusSchema>;

export function registrationKey(registration: string) {
  return { pk: `CMI5REG#${registration}`, sk: 'CMI5REG' as const };
}

export async function getCmi5Registration(registration: string): Promise<Cmi5RegistrationRecord | undefined> {
  if (!UUID.test(registration)) return undefined;
  const item = await getItem(registrationKey(registration), { consistent: true });
  return item ? recordFrom(cmi5RegistrationItemSchema, item) : undefined;
}

/** The learner's newest registration for the module, if any. */
export async function latestCmi5Registration(
  moduleid: number,
  userid: number,
): Promise<Cmi5RegistrationRecord | undefined> {
  const item = await queryFirst({
    index: INDEXES.gsi1,
    partition: `CMI5REGS#${moduleid}#${userid}`,
    descending: true,
  });
  return item ? recordsOf(cmi5RegistrationItemSchema)(item) : undefined;
}

/** Every registration of a module's learner (a small collection), oldest first. */
export async function listCmi5Registrations(moduleid: number, userid: number): Promise<Cmi5RegistrationRecord[]> {
  const items = await queryAll({ index: INDEXES.gsi1, partition: `CMI5REGS#${moduleid}#${userid}` });
  return items.map(recordsOf(cmi5RegistrationItemSchema));
}

/** Writes the record on condition of the version it replaces (none for version 1). False when that failed. */
export async function putCmi5Registration(record: Cmi5RegistrationRecord): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...registrationKey(record.registration),
          entity: 'Cmi5Registration',
          [INDEXES.gsi1.pk]: `CMI5REGS#${record.moduleid}#${record.userid}`,
          [INDEXES.gsi1.sk]: `${padId(record.created)}#${record.registration}`,
          ...record,
        } satisfies z.input<typeof cmi5RegistrationItemSchema>,
        ConditionExpression: record.version === 1 ? 'attribute_not_exists(pk)' : 'version = :previous',
        ExpressionAttributeValues: record.version === 1 ? undefined : { ':previous': record.version - 1 },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

export async function deleteCmi5Registration(registration: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: registrationKey(registration) }));
}
