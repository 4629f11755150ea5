/**
 * Translation glossary entry: pk GLOSSARY#<entryid> / sk ENTRY, listed alphabetically by term
 * through gsi1 (gsi1pk GLOSSARY, gsi1sk <lower-case term>#<padded id>). A term is unique per
 * source language through UNIQUE#GLOSSARY_TERM#<langid>#<lower-case term>. One PUT applies
 * its adds, changes and deletes in one transaction: all of them or none.
 */
import { tableName } from '../client.ts';
import { padId } from '../keys.ts';
import { recordsOf, type StoredRecord } from '../stored-item.ts';
import { INDEXES } from '../table.ts';
import { batchGetInOrder } from '../batch.ts';
import { queryPage } from '../paging.ts';
import { transactWrite, type LabelledWrite } from '../transactions.ts';
import { claimUnique, releaseUnique, uniqueKey } from '../uniqueness.ts';
import * as z from 'zod/mini';
import { serviceAuthorSchema } from './api-token.ts';

/** Changes of one request; each index names the request entry, for error labels. */
export interface GlossaryChanges {
  creates: Array<{ index: number; entry: GlossaryEntryRecord }>;
  updates: Array<{ index: number; before: GlossaryEntryRecord; after: GlossaryEntryRecord }>;
  deletes: Array<{ index: number; entry: GlossaryEntryRecord }>;
}

const glossaryTranslationSchema = z.object({ langid: z.string(), translation: z.string() });
export type GlossaryTranslation = z.output<typeof glossaryTranslationSchema>;

export const glossaryEntryItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('ENTRY'),
  entity: z.literal('GlossaryEntry'),
  gsi1pk: z.literal('GLOSSARY'),
  gsi1sk: z.string(),
  entryid: z.int().check(z.positive()),
  /** The term in the site's source language (`langid`). */
  term: z.string(),
  langid: z.string(),
  translations: z.array(glossaryTranslationSchema),
  notes: z.string(),
  created_date: z.number(),
  modified_date: z.number(),
  /** null for a site API token, named by modified_by_token (decision 260); 0: a token's, before it. */
  modified_by: z.nullable(z.int()),
  modified_by_token: z.optional(serviceAuthorSchema),
  /** Bumped by every change; a change applies only to the version it was based on. */
  version: z.int(),
});

export type GlossaryEntryRecord = StoredRecord<typeof glossaryEntryItemSchema>;

export function entryKey(entryid: number) {
  return { pk: `GLOSSARY#${entryid}`, sk: 'ENTRY' } as const;
}

/** The uniqueness value of a term: per source language, case-insensitive. */
export function termKeyValue(entry: Pick<GlossaryEntryRecord, 'langid' | 'term'>): string {
  return `${entry.langid}#${entry.term.toLowerCase()}`;
}

/** The item keys a change touches (a transaction may touch each item once). */
export function touchedKeys(changes: GlossaryChanges): string[] {
  const keyOf = (key: { pk: string; sk: string }) => `${key.pk}|${key.sk}`;
  const term = (entry: GlossaryEntryRecord) => keyOf(uniqueKey('GLOSSARY_TERM', termKeyValue(entry)));
  return [
    ...changes.creates.flatMap(({ entry }) => [keyOf(entryKey(entry.entryid)), term(entry)]),
    ...changes.updates.flatMap(({ before, after }) =>
      termKeyValue(before) === termKeyValue(after)
        ? [keyOf(entryKey(after.entryid))]
        : [keyOf(entryKey(after.entryid)), term(before), term(after)],
    ),
    ...changes.deletes.flatMap(({ entry }) => [keyOf(entryKey(entry.entryid)), term(entry)]),
  ];
}

function toItem(entry: GlossaryEntryRecord): z.input<typeof glossaryEntryItemSchema> {
  return {
    ...entryKey(entry.entryid),
    entity: 'GlossaryEntry',
    [INDEXES.gsi1.pk]: 'GLOSSARY',
    [INDEXES.gsi1.sk]: `${entry.term.toLowerCase()}#${padId(entry.entryid)}`,
    ...entry,
  };
}

const fromItem = recordsOf(glossaryEntryItemSchema);

/** A new entry and its term claim (labels `entry:<index>`, `term:<index>`); also the explicit-id path. */
export function glossaryCreateWrites(entry: GlossaryEntryRecord, index = 0): LabelledWrite[] {
  return [
    {
      label: `entry:${index}`,
      item: { Put: { TableName: tableName(), Item: toItem(entry), ConditionExpression: 'attribute_not_exists(pk)' } },
    },
    { ...claimUnique('GLOSSARY_TERM', termKeyValue(entry), { entryid: entry.entryid }), label: `term:${index}` },
  ];
}

/**
 * Applies every change or none. Labels on failure: `term:<index>` (the term is taken),
 * `entry:<index>` (the entry changed or went away since it was read, or already exists).
 */
export async function applyGlossaryChanges(changes: GlossaryChanges): Promise<void> {
  const claim = (index: number, entry: GlossaryEntryRecord): LabelledWrite => ({
    ...claimUnique('GLOSSARY_TERM', termKeyValue(entry), { entryid: entry.entryid }),
    label: `term:${index}`,
  });
  const writes: LabelledWrite[] = [];
  for (const { index, entry } of changes.creates) writes.push(...glossaryCreateWrites(entry, index));
  for (const { index, before, after } of changes.updates) {
    writes.push({
      label: `entry:${index}`,
      item: {
        Put: {
          TableName: tableName(),
          Item: toItem(after),
          ConditionExpression: 'attribute_exists(pk) AND version = :version',
          ExpressionAttributeValues: { ':version': before.version },
        },
      },
    });
    if (termKeyValue(before) !== termKeyValue(after)) {
      writes.push({ ...releaseUnique('GLOSSARY_TERM', termKeyValue(before)), label: `release:${index}` });
      writes.push(claim(index, after));
    }
  }
  for (const { index, entry } of changes.deletes) {
    writes.push({
      label: `entry:${index}`,
      item: {
        Delete: { TableName: tableName(), Key: entryKey(entry.entryid), ConditionExpression: 'attribute_exists(pk)' },
      },
    });
    writes.push({ ...releaseUnique('GLOSSARY_TERM', termKeyValue(entry)), label: `release-deleted:${index}` });
  }
  if (writes.length > 0) await transactWrite(writes);
}

export async function getGlossaryEntries(entryids: number[]): Promise<GlossaryEntryRecord[]> {
  return (await batchGetInOrder(entryids.map(entryKey))).map(fromItem);
}

/** Entries alphabetical by term. */
export async function listGlossaryEntries(page: { limit: number; offset: number }): Promise<GlossaryEntryRecord[]> {
  return (await queryPage({ index: INDEXES.gsi1, partition: 'GLOSSARY' }, page)).map(fromItem);
}
