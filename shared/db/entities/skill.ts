/**
 * Skills (docs/competency.md): a guide, or a named group of guides, that people hold a level in.
 * - Skill: pk SKILL#<skillid> / sk SKILL; listed through gsi1 (SKILLS, padded id).
 * - SkillGuide: pk SKILL#<skillid> / sk GUIDE#<padded guideid>; in gsi1 GUIDESKILLS#<guideid>
 *   (padded skillid): the skills a guide belongs to, for the gate and for a release.
 * A skill and its guide items change in one transaction, the skill on condition of its version.
 */
import * as z from 'zod/mini';
import { tableName } from '../client.ts';
import { getItem } from '../items.ts';
import { padId } from '../keys.ts';
import { INDEXES } from '../table.ts';
import { queryAll, queryPage, type Page } from '../paging.ts';
import { batchGetInOrder } from '../batch.ts';
import { transactWrite, type LabelledWrite } from '../transactions.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';

const id = z.int().check(z.positive());

export const skillItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('SKILL'),
  entity: z.literal('Skill'),
  gsi1pk: z.literal('SKILLS'),
  gsi1sk: z.string(),
  skillid: id,
  name: z.string(),
  description: z.string(),
  guideids: z.array(id),
  /** Days a level stays valid after it was set; null: levels never expire. */
  recertification_days: z.nullable(z.int()),
  /** Which releases of its guides ask holders for an acknowledgement, outside any course. */
  acknowledgement_strictness: z.enum(['major', 'minor']),
  created_date: z.number(),
  modified_date: z.number(),
  version: z.int(),
});

export const skillGuideItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('SkillGuide'),
  gsi1pk: z.string(),
  gsi1sk: z.string(),
  skillid: id,
  guideid: id,
});

export type SkillRecord = StoredRecord<typeof skillItemSchema>;

export const skillKey = (skillid: number) => ({ pk: `SKILL#${skillid}`, sk: 'SKILL' });
export const skillGuideKey = (skillid: number, guideid: number) => ({
  pk: `SKILL#${skillid}`,
  sk: `GUIDE#${padId(guideid)}`,
});

function skillPut(skill: SkillRecord, expectedVersion: number | null): LabelledWrite {
  return {
    label: 'skill',
    item: {
      Put: {
        TableName: tableName(),
        Item: { ...skillKey(skill.skillid), entity: 'Skill', gsi1pk: 'SKILLS', gsi1sk: padId(skill.skillid), ...skill },
        ConditionExpression: expectedVersion === null ? 'attribute_not_exists(pk)' : 'version = :version',
        ExpressionAttributeValues: expectedVersion === null ? undefined : { ':version': expectedVersion },
      },
    },
  };
}

function guideWrites(skillid: number, before: number[], after: number[]): LabelledWrite[] {
  const added = after.filter((guideid) => !before.includes(guideid));
  const removed = before.filter((guideid) => !after.includes(guideid));
  return [
    ...added.map((guideid) => ({
      label: `skill-guide:${guideid}`,
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...skillGuideKey(skillid, guideid),
            entity: 'SkillGuide',
            [INDEXES.gsi1.pk]: `GUIDESKILLS#${guideid}`,
            [INDEXES.gsi1.sk]: padId(skillid),
            skillid,
            guideid,
          },
        },
      },
    })),
    ...removed.map((guideid) => ({
      label: `skill-guide:${guideid}`,
      item: { Delete: { TableName: tableName(), Key: skillGuideKey(skillid, guideid) } },
    })),
  ];
}

/** Writes a skill (new when `before` is null) and its guide items, all or nothing. */
export async function saveSkill(skill: SkillRecord, before: SkillRecord | null): Promise<void> {
  await transactWrite([
    skillPut(skill, before?.version ?? null),
    ...guideWrites(skill.skillid, before?.guideids ?? [], skill.guideids),
  ]);
}

export async function deleteSkill(skill: SkillRecord): Promise<void> {
  await transactWrite([
    {
      label: 'skill',
      item: {
        Delete: {
          TableName: tableName(),
          Key: skillKey(skill.skillid),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': skill.version },
        },
      },
    },
    ...guideWrites(skill.skillid, skill.guideids, []),
  ]);
}

export async function getSkill(skillid: number, consistent = false): Promise<SkillRecord | undefined> {
  const item = await getItem(skillKey(skillid), { consistent });
  return item ? recordFrom(skillItemSchema, item) : undefined;
}

export async function getSkills(skillids: number[]): Promise<SkillRecord[]> {
  return (await batchGetInOrder(skillids.map(skillKey))).map(recordsOf(skillItemSchema));
}

export async function listSkills(page: Page): Promise<SkillRecord[]> {
  return (await queryPage({ index: INDEXES.gsi1, partition: 'SKILLS' }, page)).map(recordsOf(skillItemSchema));
}

/** The skills a guide belongs to (a guide is in few skills: one Query). */
export async function skillsOfGuide(guideid: number): Promise<SkillRecord[]> {
  const refs = (await queryAll({ index: INDEXES.gsi1, partition: `GUIDESKILLS#${guideid}` })).map(
    recordsOf(skillGuideItemSchema),
  );
  return getSkills(refs.map((ref) => ref.skillid));
}
