/**
 * What a work-log entry recorded about its operator's qualification when it started
 * (docs/competency.md, the gate): WorkLogQualification, pk WORKLOG#<entryid> / sk QUALIFICATION,
 * in the entry's partition (deleted with it). Written once at the start, so the record stands
 * when levels change later; a `warn` entry is flagged until a qualified supervisor's signed
 * override, written on condition that none was given yet.
 */
import * as z from 'zod/mini';
import { authenticatedBySchema } from '../../domain/signature-auth.ts';
import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import type { LabelledWrite } from '../transactions.ts';
import { recordFrom, type StoredRecord } from '../stored-item.ts';
import { LEVEL_SOURCES } from '../../domain/competency.ts';

const id = z.int().check(z.positive());

/** What the gate found for one operator of the entry. */
const gateRecordFields = {
  entryid: id,
  guideid: id,
  userid: id,
  gate_mode: z.enum(['off', 'warn', 'block']),
  min_level: z.int(),
  outcome: z.enum(['allow', 'warn']),
  flagged: z.boolean(),
  skills: z.array(
    z.object({
      skillid: id,
      name: z.string(),
      required: z.int(),
      held: z.int(),
      standing: z.enum(['current', 'none', 'expired', 'outdated']),
      level: z.int(),
      expires_at: z.nullable(z.number()),
      source: z.nullable(z.enum(LEVEL_SOURCES)),
    }),
  ),
  date: z.number(),
  override: z.nullable(
    z.object({
      userid: id,
      date: z.number(),
      meaning: z.literal('override'),
      method: z.literal('password'),
      comment: z.string(),
      /** How the supervisor proved themselves (decision 237; none on older overrides: password). */
      authenticated_by: z.optional(authenticatedBySchema),
    }),
  ),
};

export const workLogQualificationItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('QUALIFICATION'),
  entity: z.literal('WorkLogQualification'),
  ...gateRecordFields,
  /**
   * The records of earlier operators, oldest first, when the entry changed hands (decision 305):
   * the record above is always the current operator's.
   */
  previous: z.optional(z.array(z.strictObject(gateRecordFields))),
});

export type WorkLogQualificationRecord = StoredRecord<typeof workLogQualificationItemSchema>;

export const qualificationKey = (entryid: number) => ({ pk: `WORKLOG#${entryid}`, sk: 'QUALIFICATION' });

export function qualificationPut(record: WorkLogQualificationRecord, expectNoOverride: boolean): LabelledWrite {
  return {
    label: 'qualification',
    item: {
      Put: {
        TableName: tableName(),
        Item: { ...qualificationKey(record.entryid), entity: 'WorkLogQualification', ...record },
        ConditionExpression: expectNoOverride
          ? 'attribute_exists(pk) AND #override = :none'
          : 'attribute_not_exists(pk)',
        ExpressionAttributeNames: expectNoOverride ? { '#override': 'override' } : undefined,
        ExpressionAttributeValues: expectNoOverride ? { ':none': null } : undefined,
      },
    },
  };
}

/** Most earlier operators' records an entry keeps (a hand-over past it drops the oldest). */
export const MAX_PREVIOUS_OPERATORS = 20;

/**
 * The record for a new operator (decision 305), on condition the record read is still the one
 * stored (its operator, date and override), or that there was none.
 */
export function qualificationHandoverPut(
  record: WorkLogQualificationRecord,
  before: WorkLogQualificationRecord | undefined,
): LabelledWrite {
  return {
    label: 'qualification',
    item: {
      Put: {
        TableName: tableName(),
        Item: { ...qualificationKey(record.entryid), entity: 'WorkLogQualification', ...record },
        ConditionExpression: before
          ? '#userid = :userid AND #date = :date AND ' +
            (before.override ? 'attribute_exists(#override.userid)' : '#override = :none')
          : 'attribute_not_exists(pk)',
        ExpressionAttributeNames: before
          ? { '#userid': 'userid', '#date': 'date', '#override': 'override' }
          : undefined,
        ExpressionAttributeValues: before
          ? { ':userid': before.userid, ':date': before.date, ...(before.override ? {} : { ':none': null }) }
          : undefined,
      },
    },
  };
}

export async function getWorkLogQualification(entryid: number): Promise<WorkLogQualificationRecord | undefined> {
  const item = await getItem(qualificationKey(entryid), { consistent: true });
  return item ? recordFrom(workLogQualificationItemSchema, item) : undefined;
}
