/**
 * Where a module is used: pk MODULE#<moduleid> / sk USAGE#COURSE#<padded wikiid>, one item per
 * course that has a stage referencing the module.
 *
 * CONTRACT with the courses code: whoever saves a course stage that references a module writes
 * `moduleUsageWrite(moduleid, { wikiid, title })` in the SAME transaction as the stage (and
 * `moduleUsageDelete` in the transaction that removes the last such stage), so usage can never
 * disagree with the course. GET /external_training_modules/{id}/usage and the player's access
 * rule read these items.
 */
import { padId } from '../keys.ts';
import { tableName } from '../client.ts';
import { queryChunks, queryPage, type PageQuery } from '../paging.ts';
import type { LabelledWrite } from '../transactions.ts';
import { recordsOf, type StoredRecord } from '../stored-item.ts';
import * as z from 'zod/mini';

export function usageKey(moduleid: number, wikiid: number) {
  return { pk: `MODULE#${moduleid}`, sk: `USAGE#COURSE#${padId(wikiid)}` };
}

const usageCollection = (moduleid: number): PageQuery => ({
  partition: `MODULE#${moduleid}`,
  sortPrefix: 'USAGE#COURSE#',
});

export const moduleUsageItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('ModuleUsage'),
  moduleid: z.int().check(z.positive()),
  wikiid: z.int().check(z.positive()),
  /** The course's title when the stage was saved. */
  title: z.string(),
});

export type ModuleUsage = StoredRecord<typeof moduleUsageItemSchema>;

/** Put (create or refresh the title) in the course stage's transaction. */
export function moduleUsageWrite(moduleid: number, course: { wikiid: number; title: string }): LabelledWrite {
  return {
    label: `module-usage:${moduleid}:${course.wikiid}`,
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...usageKey(moduleid, course.wikiid),
          entity: 'ModuleUsage',
          moduleid,
          wikiid: course.wikiid,
          title: course.title,
        } satisfies z.input<typeof moduleUsageItemSchema>,
      },
    },
  };
}

export function moduleUsageDelete(moduleid: number, wikiid: number): LabelledWrite {
  return {
    label: `module-usage:${moduleid}:${wikiid}`,
    item: { Delete: { TableName: tableName(), Key: usageKey(moduleid, wikiid) } },
  };
}

const toUsage = recordsOf(moduleUsageItemSchema);

export async function listModuleUsage(
  moduleid: number,
  page: { limit: number; offset: number },
): Promise<ModuleUsage[]> {
  return (await queryPage(usageCollection(moduleid), page)).map(toUsage);
}

/** Every course using the module, 100 at a time (the player stops at the first match). */
export async function* moduleUsageChunks(moduleid: number): AsyncGenerator<ModuleUsage[]> {
  for await (const chunk of queryChunks(usageCollection(moduleid), 100)) yield chunk.map(toUsage);
}
