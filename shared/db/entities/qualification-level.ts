/**
 * Qualification levels (docs/competency.md): one per person and skill.
 * - QualificationLevel: pk USER#<userid> / sk LEVEL#<padded skillid>; in gsi1 SKILLLEVELS#<skillid>
 *   (padded userid: the holders of a skill) and gsi2 LEVELS (padded userid#padded skillid: every
 *   level, the Admin's matrix and the expiry forecast).
 * A level is written on condition of the version read (a new one: that none exists), with its
 * audit record in the same transaction (shared/db/audit.ts extra writes).
 */
import * as z from 'zod/mini';
import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { INDEXES } from '../table.ts';
import { queryAll, queryPage, type Page, type PageQuery } from '../paging.ts';
import { batchGetInOrder } from '../batch.ts';
import type { LabelledWrite } from '../transactions.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import { LEVEL_SOURCES } from '../../domain/competency.ts';

const id = z.int().check(z.positive());
const version = z.object({ major: z.int(), minor: z.int() });

export const qualificationLevelItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('QualificationLevel'),
  gsi1pk: z.string(),
  gsi1sk: z.string(),
  gsi2pk: z.literal('LEVELS'),
  gsi2sk: z.string(),
  userid: id,
  skillid: id,
  level: z.int().check(z.minimum(0), z.maximum(4)),
  expires_at: z.nullable(z.number()),
  source: z.enum(LEVEL_SOURCES),
  /** The trainer who signed it (trainer_signature), or the trainee (derived levels). */
  set_by_userid: id,
  set_date: z.number(),
  /** The release of each of the skill's guides when the level was set (null: not released then). */
  earned: z.array(z.object({ guideid: id, release: z.nullable(version) })),
  version: z.int(),
});

export type QualificationLevelRecord = StoredRecord<typeof qualificationLevelItemSchema>;

export const levelKey = (userid: number, skillid: number) => ({ pk: `USER#${userid}`, sk: `LEVEL#${padId(skillid)}` });

export function levelPut(level: QualificationLevelRecord, expectedVersion: number | null): LabelledWrite {
  return {
    label: 'level',
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...levelKey(level.userid, level.skillid),
          entity: 'QualificationLevel',
          [INDEXES.gsi1.pk]: `SKILLLEVELS#${level.skillid}`,
          [INDEXES.gsi1.sk]: padId(level.userid),
          [INDEXES.gsi2.pk]: 'LEVELS',
          [INDEXES.gsi2.sk]: `${padId(level.userid)}#${padId(level.skillid)}`,
          ...level,
        },
        ConditionExpression: expectedVersion === null ? 'attribute_not_exists(pk)' : 'version = :version',
        ExpressionAttributeValues: expectedVersion === null ? undefined : { ':version': expectedVersion },
      },
    },
  };
}

export async function getLevel(userid: number, skillid: number): Promise<QualificationLevelRecord | undefined> {
  const item = await getItem(levelKey(userid, skillid), { consistent: true });
  return item ? recordFrom(qualificationLevelItemSchema, item) : undefined;
}

export async function getLevels(
  pairs: Array<{ userid: number; skillid: number }>,
): Promise<QualificationLevelRecord[]> {
  return (await batchGetInOrder(pairs.map((pair) => levelKey(pair.userid, pair.skillid)))).map(
    recordsOf(qualificationLevelItemSchema),
  );
}

/** A person's levels (one partition, their sort-key prefix). */
export async function levelsOfUser(userid: number): Promise<QualificationLevelRecord[]> {
  return (await queryAll({ partition: `USER#${userid}`, sortPrefix: 'LEVEL#' })).map(
    recordsOf(qualificationLevelItemSchema),
  );
}

/** Who holds a level in a skill, by userid. */
export function skillLevelsCollection(skillid: number): PageQuery {
  return { index: INDEXES.gsi1, partition: `SKILLLEVELS#${skillid}` };
}

/** Every level, by userid then skillid. */
export const allLevelsCollection: PageQuery = { index: INDEXES.gsi2, partition: 'LEVELS' };

export async function levelsPage(query: PageQuery, page: Page): Promise<QualificationLevelRecord[]> {
  return (await queryPage(query, page)).map(recordsOf(qualificationLevelItemSchema));
}

export async function levelsAll(query: PageQuery): Promise<QualificationLevelRecord[]> {
  return (await queryAll(query)).map(recordsOf(qualificationLevelItemSchema));
}
