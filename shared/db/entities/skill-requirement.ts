/**
 * Required skills (docs/competency.md "Requirements and gaps"): the level a team or a role
 * requires in a skill. SkillRequirement, one item per scope and skill:
 * - a team's: pk TEAM#<teamid> / sk REQUIRES#<padded skillid> (in the team's partition, beside its
 *   MEMBER# items: the team's requirements are one Query);
 * - a role's: pk ROLEREQ#<role> / sk REQUIRES#<padded skillid> (Admin, Author, User; roles nest);
 * - every item in gsi1 SKILLREQS#<skillid> / <scope>#<id>: who requires a skill (a trainer's view).
 * A scope's set is replaced whole, in one transaction with its audit record.
 */
import * as z from 'zod/mini';
import { tableName } from '../client.ts';
import { padId } from '../keys.ts';
import { INDEXES } from '../table.ts';
import { queryAll } from '../paging.ts';
import type { LabelledWrite } from '../transactions.ts';
import { recordsOf, type StoredRecord } from '../stored-item.ts';
import { serviceAuthorSchema } from './api-token.ts';

const id = z.int().check(z.positive());

export const REQUIREMENT_ROLES = ['Admin', 'Author', 'User'] as const;
export type RequirementRole = (typeof REQUIREMENT_ROLES)[number];

export const skillRequirementItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.string(),
  entity: z.literal('SkillRequirement'),
  gsi1pk: z.string(),
  gsi1sk: z.string(),
  scope: z.enum(['team', 'role']),
  /** The team (scope `team`), else null. */
  teamid: z.nullable(id),
  /** The role (scope `role`), else null. */
  role: z.nullable(z.enum(REQUIREMENT_ROLES)),
  skillid: id,
  /** The level required, 1-4. */
  level: z.int().check(z.minimum(1), z.maximum(4)),
  /** Who set it; null when a site API token did, named by `set_by_userid_token` (decision 260). */
  set_by_userid: z.nullable(z.int()),
  set_by_userid_token: z.optional(serviceAuthorSchema),
  set_date: z.number(),
});

export type SkillRequirementRecord = StoredRecord<typeof skillRequirementItemSchema>;

export type RequirementScope = { scope: 'team'; teamid: number } | { scope: 'role'; role: RequirementRole };

const partitionOf = (scope: RequirementScope) =>
  scope.scope === 'team' ? `TEAM#${scope.teamid}` : `ROLEREQ#${scope.role}`;

export const requirementKey = (scope: RequirementScope, skillid: number) => ({
  pk: partitionOf(scope),
  sk: `REQUIRES#${padId(skillid)}`,
});

/** The requirements of one scope, by skillid (a scope holds few: one Query). */
export async function requirementsOf(scope: RequirementScope): Promise<SkillRequirementRecord[]> {
  const items = await queryAll({ partition: partitionOf(scope), sortPrefix: 'REQUIRES#', consistent: true });
  return items.map(recordsOf(skillRequirementItemSchema));
}

/** Who requires a skill (teams and roles), through gsi1. */
export async function requirementsOfSkill(skillid: number): Promise<SkillRequirementRecord[]> {
  const items = await queryAll({ index: INDEXES.gsi1, partition: `SKILLREQS#${skillid}` });
  return items.map(recordsOf(skillRequirementItemSchema));
}

/**
 * The writes that replace a scope's set: a put for each requirement of `after`, a delete (on
 * condition it is still there) for each skill of `before` no longer required.
 */
export function replaceRequirementWrites(
  scope: RequirementScope,
  before: SkillRequirementRecord[],
  after: SkillRequirementRecord[],
): LabelledWrite[] {
  const kept = new Set(after.map((requirement) => requirement.skillid));
  const scopeId = scope.scope === 'team' ? padId(scope.teamid) : scope.role;
  return [
    ...before
      .filter((requirement) => !kept.has(requirement.skillid))
      .map((requirement) => ({
        label: `requirement:${requirement.skillid}`,
        item: {
          Delete: {
            TableName: tableName(),
            Key: requirementKey(scope, requirement.skillid),
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
      })),
    ...after.map((requirement) => ({
      label: `requirement:${requirement.skillid}`,
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...requirementKey(scope, requirement.skillid),
            entity: 'SkillRequirement',
            [INDEXES.gsi1.pk]: `SKILLREQS#${requirement.skillid}`,
            [INDEXES.gsi1.sk]: `${scope.scope}#${scopeId}`,
            ...requirement,
          },
        },
      },
    })),
  ];
}
