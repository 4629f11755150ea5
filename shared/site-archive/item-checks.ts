/**
 * What a site file's item is and whether it may be written, decided by the target, never by the
 * file (decisions 164 and 165): its entity from its key shape (shared/db/entity-schemas.ts), its
 * attributes against that entity's schema and its key (identity.ts, decision 254), its size
 * against DynamoDB's limit; credentials and privileges named for the report.
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  entityOfKey,
  entityShape,
  itemBytes,
  itemProblem,
  MAX_ITEM_BYTES,
  type EntityShape,
} from '../db/entity-schemas.ts';
import { identityProblem } from './identity.ts';
import { itemLabel, type RawItem } from './item-compare.ts';

export type CheckedItem =
  | { ok: true; shape: EntityShape; plain: Record<string, unknown> }
  | { ok: false; reason: string; unknownName?: string; keyEntity?: string };

/** Checks one item of a file whose record names it `claimed`. */
export function checkItem(claimed: string, item: RawItem): CheckedItem {
  const label = `${claimed} ${itemLabel(item)}`;
  const bytes = itemBytes(item);
  if (bytes > MAX_ITEM_BYTES) {
    return { ok: false, reason: `${label}: ${bytes} bytes, over DynamoDB's item limit of ${MAX_ITEM_BYTES}` };
  }
  let plain: Record<string, unknown>;
  try {
    plain = unmarshall(item);
  } catch (error) {
    return { ok: false, reason: `${label}: not a DynamoDB item (${(error as Error).message})` };
  }
  if (typeof plain.pk !== 'string' || typeof plain.sk !== 'string') {
    return { ok: false, reason: `${label}: no string pk and sk` };
  }
  const shape = entityOfKey(plain.pk, plain.sk);
  if (!shape) {
    // A name this version never writes is an unknown type; a known name under a strange key is invalid.
    const unknownName = entityShape(claimed) ? undefined : claimed;
    return { ok: false, reason: `${label}: a key shape this site never writes`, unknownName };
  }
  if (shape.entity !== claimed) {
    return {
      ok: false,
      reason: `${label}: the record says ${claimed}, its key is a ${shape.entity}`,
      keyEntity: shape.entity,
    };
  }
  const problem = itemProblem(shape, plain);
  if (problem) return { ok: false, reason: `${label}: ${problem}`, keyEntity: shape.entity };
  const disagreement = identityProblem(shape.entity, plain);
  if (disagreement) return { ok: false, reason: `${label}: ${disagreement}`, keyEntity: shape.entity };
  return { ok: true, shape, plain };
}

/** The accounts a credential item acts for (its owner attributes). */
export function credentialOwners(shape: EntityShape, plain: Record<string, unknown>): number[] {
  return (shape.credentialOwner ?? [])
    .map((attribute) => plain[attribute])
    .filter((id): id is number => typeof id === 'number' && Number.isInteger(id) && id > 0);
}

/** Roles above a plain User that a User item gives. */
export function privilegesOf(shape: EntityShape, plain: Record<string, unknown>): string[] {
  if (shape.entity !== 'User' || !Array.isArray(plain.privileges)) return [];
  return (plain.privileges as string[]).filter((role) => role !== 'User');
}
