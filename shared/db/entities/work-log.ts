/**
 * Work-log entries (one run-through of a guide) and their step data.
 * - Entry: pk WORKLOG#<entryid> / sk ENTRY: the entry's fields and its timing. `version` moves
 *   with every timing change; every change is conditional on it (or on the status and operator
 *   for step data), never a read-then-write. While suspended the entry carries the sparse gsi1
 *   key WORKLOG#SUSPENDED#<guideid> / padded entryid.
 * - Step data: pk WORKLOG#<entryid> / sk DATA#<padded field_revisionid>: one value (a string)
 *   with its field's label, type and step. Field revisions never change, so the copy never
 *   goes stale. The entry and its data are one partition: one Query reads them all.
 * - List links: pk WORKLOGS[#G<guideid>][#U<userid>][#W<workorderid>] / sk <padded entryid>,
 *   one per combination of the GET /work_log filters (8), written and deleted with the entry,
 *   so every filter combination pages one partition, newest first. The creator (userid),
 *   guide and work order of an entry never change, so the links never move.
 */
import { batchDelete } from '../batch.ts';
import { tableName } from '../client.ts';
import { padId } from '../keys.ts';
import { queryAll, queryPage } from '../paging.ts';
import { INDEXES } from '../table.ts';
import { transactWrite, type LabelledWrite } from '../transactions.ts';
import { encodeUriComponentSafe } from '../../domain/text.ts';
import { WORK_LOG_STATUSES } from '../../domain/work-log-timing.ts';
import { FIELD_TYPES } from '../../domain/step-forms.ts';
import { parseStored, recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import * as z from 'zod/mini';

export interface WorkLogFilter {
  guideid?: number;
  userid?: number;
  workorderid?: string;
}

export interface StoredEntry {
  entry: WorkLogEntryRecord;
  /** By field_revisionid, ascending. */
  values: WorkLogValueRecord[];
}

function entryPartition(entryid: number): string {
  return `WORKLOG#${entryid}`;
}

/** A WorkLogEntry as entryCreateWrites puts it and entryUpdateWrite moves it (gsi1 only while suspended). */
export const workLogEntryItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('ENTRY'),
  entity: z.literal('WorkLogEntry'),
  gsi1pk: z.optional(z.string()),
  gsi1sk: z.optional(z.string()),
  entryid: z.int().check(z.positive()),
  guideid: z.int().check(z.positive()),
  /** The user who started the entry (the `userid` filter); never changes. */
  userid: z.int().check(z.positive()),
  /** The user working the entry now: the creator until someone assumes it. */
  operator_userid: z.int().check(z.positive()),
  workorderid: z.string(),
  guide_revisionid: z.int(),
  max_form_revisionid: z.nullable(z.int()),
  /** Id of the latest timing event; 0 before the first one (shown as null). */
  timingid: z.int(),
  version: z.int(),
  // The timing (shared/domain/work-log-timing.ts, WorkLogTiming).
  status: z.enum(WORK_LOG_STATUSES),
  starttime: z.number(),
  endtime: z.nullable(z.number()),
  active_stepid: z.nullable(z.int()),
  step_since: z.nullable(z.number()),
  resume_stepid: z.nullable(z.int()),
  idle_since: z.nullable(z.number()),
  paused_seconds: z.number(),
  step_seconds: z.record(z.string(), z.number()),
  last_event: z.number(),
});

export type WorkLogEntryRecord = StoredRecord<typeof workLogEntryItemSchema>;

export const workLogValueItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('WorkLogValue'),
  entryid: z.int().check(z.positive()),
  field_revisionid: z.int().check(z.positive()),
  stepid: z.int().check(z.positive()),
  label: z.string(),
  field_type: z.enum(FIELD_TYPES),
  value: z.string(),
  /** Who saved the value, and when. */
  userid: z.int(),
  date: z.number(),
});

export type WorkLogValueRecord = StoredRecord<typeof workLogValueItemSchema>;

/** The keys readAllKeys projects (an entry's partition holds its entry and its values). */
const storedKeySchema = z.pick(workLogValueItemSchema, { pk: true, sk: true });

export const workLogLinkItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('WorkLogLink'),
  entryid: z.int().check(z.positive()),
});

export function entryKey(entryid: number) {
  return { pk: entryPartition(entryid), sk: 'ENTRY' as const };
}

export function valueKey(entryid: number, fieldRevisionid: number) {
  return { pk: entryPartition(entryid), sk: `DATA#${padId(fieldRevisionid)}` };
}

function suspendedPartition(guideid: number): string {
  return `WORKLOG#SUSPENDED#${guideid}`;
}

/** The link partition of one filter combination; work order ids are URI-encoded (no `#` inside). */
export function filterPartition(filter: WorkLogFilter): string {
  let partition = 'WORKLOGS';
  if (filter.guideid !== undefined) partition += `#G${filter.guideid}`;
  if (filter.userid !== undefined) partition += `#U${filter.userid}`;
  if (filter.workorderid !== undefined) partition += `#W${encodeUriComponentSafe(filter.workorderid)}`;
  return partition;
}

/** Every filter combination an entry is listed under. */
function linkPartitions(entry: Pick<WorkLogEntryRecord, 'guideid' | 'userid' | 'workorderid'>): string[] {
  const partitions: string[] = [];
  for (const guideid of [undefined, entry.guideid]) {
    for (const userid of [undefined, entry.userid]) {
      for (const workorderid of [undefined, entry.workorderid])
        partitions.push(filterPartition({ guideid, userid, workorderid }));
    }
  }
  return partitions;
}

function suspendedIndexKeys(entry: WorkLogEntryRecord): Record<string, string> {
  return entry.status === 'suspended'
    ? { [INDEXES.gsi1.pk]: suspendedPartition(entry.guideid), [INDEXES.gsi1.sk]: padId(entry.entryid) }
    : {};
}

/** Creates the entry with its list links (label `entry` if the id is taken). */
/** `also`: writes that stand or fall with the entry (a client guid's claim, decision 224). */
export async function insertEntry(entry: WorkLogEntryRecord, also: LabelledWrite[] = []): Promise<void> {
  await transactWrite([...entryCreateWrites(entry), ...also]);
}

/** The writes of insertEntry (the explicit-id path: a migration writes a source's entry with its id). */
export function entryCreateWrites(entry: WorkLogEntryRecord): LabelledWrite[] {
  return [
    {
      label: 'entry',
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...entryKey(entry.entryid),
            entity: 'WorkLogEntry',
            ...suspendedIndexKeys(entry),
            ...entry,
          } satisfies z.input<typeof workLogEntryItemSchema>,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
    ...linkPartitions(entry).map((partition, index) => ({
      label: `link:${index}`,
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            pk: partition,
            sk: padId(entry.entryid),
            entity: 'WorkLogLink',
            entryid: entry.entryid,
          } satisfies z.input<typeof workLogLinkItemSchema>,
        },
      },
    })),
  ];
}

/** The entry and its step data (one Query over its partition); undefined when there is no entry. */
export async function readEntry(
  entryid: number,
  options: { consistent?: boolean } = {},
): Promise<StoredEntry | undefined> {
  const items = await queryAll({ partition: entryPartition(entryid), consistent: options.consistent });
  const entryItem = items.find((item) => item.sk === 'ENTRY');
  if (!entryItem) return undefined;
  const values = items.filter((item) => String(item.sk).startsWith('DATA#')).map(recordsOf(workLogValueItemSchema));
  return { entry: recordFrom(workLogEntryItemSchema, entryItem), values };
}

/** Entries with their data, in the order asked for; entries deleted meanwhile are left out. */
export async function readEntries(entryids: number[]): Promise<StoredEntry[]> {
  const found: Array<StoredEntry | undefined> = [];
  for (let start = 0; start < entryids.length; start += 25) {
    found.push(...(await Promise.all(entryids.slice(start, start + 25).map((entryid) => readEntry(entryid)))));
  }
  return found.filter((stored): stored is StoredEntry => stored !== undefined);
}

/** One page of the entryids listed under a filter combination, newest first. */
export async function listEntryIds(filter: WorkLogFilter, page: { limit: number; offset: number }): Promise<number[]> {
  const links = await queryPage({ partition: filterPartition(filter), descending: true }, page);
  return links.map((link) => Number(link.entryid));
}

/** One page of the suspended entries of a guide, newest first. */
export async function listSuspendedEntryIds(
  guideid: number,
  page: { limit: number; offset: number },
): Promise<number[]> {
  const items = await queryPage(
    { index: INDEXES.gsi1, partition: suspendedPartition(guideid), descending: true },
    page,
  );
  return items.map((item) => parseStored(workLogEntryItemSchema, item).entryid);
}

const MUTABLE_FIELDS = [
  'status',
  'endtime',
  'active_stepid',
  'step_since',
  'resume_stepid',
  'idle_since',
  'paused_seconds',
  'step_seconds',
  'last_event',
  'operator_userid',
  'guide_revisionid',
  'timingid',
  'version',
] as const satisfies ReadonlyArray<keyof WorkLogEntryRecord>;

/**
 * Writes the entry's new timing state (label `entry`) if its version is still
 * `expectedVersion` and, when given, its timingid is still `expectedTimingid`. The suspended
 * index key comes and goes with the status.
 */
export function entryUpdateWrite(
  next: WorkLogEntryRecord,
  expectedVersion: number,
  expectedTimingid?: number,
): LabelledWrite {
  const names: Record<string, string> = { '#version': 'version' };
  const values: Record<string, unknown> = { ':expectedVersion': expectedVersion };
  const sets = MUTABLE_FIELDS.map((field, index) => {
    names[`#f${index}`] = field;
    values[`:v${index}`] = next[field];
    return `#f${index} = :v${index}`;
  });
  const index = suspendedIndexKeys(next);
  let update = `SET ${sets.join(', ')}`;
  names['#ipk'] = INDEXES.gsi1.pk;
  names['#isk'] = INDEXES.gsi1.sk;
  if (index[INDEXES.gsi1.pk]) {
    values[':ipk'] = index[INDEXES.gsi1.pk];
    values[':isk'] = index[INDEXES.gsi1.sk];
    update += ', #ipk = :ipk, #isk = :isk';
  } else {
    update += ' REMOVE #ipk, #isk';
  }
  let condition = 'attribute_exists(pk) AND #version = :expectedVersion';
  condition += timingGuard(names, values, expectedTimingid);
  return {
    label: 'entry',
    item: {
      Update: {
        TableName: tableName(),
        Key: entryKey(next.entryid),
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  };
}

/**
 * The clause that holds only while the entry's timingid is still `expectedTimingid` (a second
 * device's stale view fails it); adds its names and values. Empty when no timingid is given.
 */
function timingGuard(
  names: Record<string, string>,
  values: Record<string, unknown>,
  expectedTimingid: number | undefined,
): string {
  if (expectedTimingid === undefined) return '';
  names['#timingid'] = 'timingid';
  values[':expectedTimingid'] = expectedTimingid;
  return ' AND #timingid = :expectedTimingid';
}

/**
 * The condition step data is saved under (label `entry`): the entry exists, takes data
 * (started or paused), is worked by `operator`, and, when given, its timingid is still
 * `expectedTimingid`.
 */
export function entryAcceptsDataCheck(entryid: number, operator: number, expectedTimingid?: number): LabelledWrite {
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ':started': 'started', ':paused': 'paused', ':operator': operator };
  let condition = 'attribute_exists(pk) AND #status IN (:started, :paused) AND operator_userid = :operator';
  condition += timingGuard(names, values, expectedTimingid);
  return {
    label: 'entry',
    item: {
      ConditionCheck: {
        TableName: tableName(),
        Key: entryKey(entryid),
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  };
}

export function valuePut(value: WorkLogValueRecord): LabelledWrite {
  return {
    label: `value:${value.field_revisionid}`,
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...valueKey(value.entryid, value.field_revisionid),
          entity: 'WorkLogValue',
          ...value,
        } satisfies z.input<typeof workLogValueItemSchema>,
      },
    },
  };
}

export function valueDelete(entryid: number, fieldRevisionid: number): LabelledWrite {
  return {
    label: `value:${fieldRevisionid}`,
    item: { Delete: { TableName: tableName(), Key: valueKey(entryid, fieldRevisionid) } },
  };
}

/** Commits an entry change (timing and/or step data) atomically. */
export async function writeEntryChange(writes: LabelledWrite[]): Promise<void> {
  await transactWrite(writes);
}

/**
 * Deletes the entry and everything stored with it. The entry and its links go first, in one
 * transaction (label `entry`: it must still exist); step data can then no longer be written
 * (its condition needs the entry), so the consistent read that follows finds every value left.
 */
export async function deleteEntry(entry: WorkLogEntryRecord): Promise<void> {
  await transactWrite([
    {
      label: 'entry',
      item: {
        Delete: { TableName: tableName(), Key: entryKey(entry.entryid), ConditionExpression: 'attribute_exists(pk)' },
      },
    },
    ...linkPartitions(entry).map((partition, index) => ({
      label: `link:${index}`,
      item: { Delete: { TableName: tableName(), Key: { pk: partition, sk: padId(entry.entryid) } } },
    })),
  ]);
  await batchDelete(await readAllKeys(entry.entryid));
}

async function readAllKeys(entryid: number): Promise<Array<{ pk: string; sk: string }>> {
  const items = await queryAll({ partition: entryPartition(entryid), consistent: true, projection: ['pk', 'sk'] });
  return items.map((item) => parseStored(storedKeySchema, item));
}
