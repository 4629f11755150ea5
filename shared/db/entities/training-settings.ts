/**
 * Training settings of the site and of a document (docs/competency.md):
 * - TrainingSettings: pk TRAINSET#SITE | TRAINSET#GUIDE#<guideid> | TRAINSET#WIKI#<wikiid> / sk SETTINGS.
 *   The gate (mode, minimum level) and acknowledgements (strictness, due days, audience); a null
 *   field of a document falls back to the site's, the site's to the defaults. Level names: site only.
 */
import * as z from 'zod/mini';
import { getItem, putItem } from '../items.ts';
import { batchGetInOrder } from '../batch.ts';
import { recordFrom, recordsOf, type StoredRecord } from '../stored-item.ts';
import { GATE_MODES } from '../../domain/competency.ts';
import { serviceAuthorSchema } from './api-token.ts';

const id = z.int().check(z.positive());

export const trainingSettingsItemSchema = z.strictObject({
  pk: z.string(),
  sk: z.literal('SETTINGS'),
  entity: z.literal('TrainingSettings'),
  gate_mode: z.nullable(z.enum(GATE_MODES)),
  min_level: z.nullable(z.int().check(z.minimum(0), z.maximum(4))),
  acknowledgement_strictness: z.nullable(z.enum(['major', 'minor'])),
  acknowledgement_due_days: z.nullable(z.int().check(z.minimum(1))),
  /** People the author adds to those asked to acknowledge a release (documents only). */
  audience_userids: z.array(id),
  /** The site's names of levels 0-4 (site only; null: the defaults). */
  level_names: z.nullable(z.array(z.string())),
  /** A course's (a COURSE wiki page's) levels given by completing a stage or the course (absent: none). */
  level_grants: z.optional(
    z.array(
      z.object({ course_stageid: z.nullable(id), skillid: id, level: z.int().check(z.minimum(1), z.maximum(4)) }),
    ),
  ),
  /**
   * Who last set `level_grants` (decision 263): completing the course gives them no level from
   * these mappings. null for a site API token; absent on mappings set before the decision.
   */
  level_grants_by: z.optional(z.nullable(z.int().check(z.positive()))),
  modified_date: z.number(),
  /**
   * The person who last changed them; null for a site API token, named by modified_by_token
   * (decision 260). 0 is a token's change stored before that decision: read, never written.
   */
  modified_by: z.nullable(z.int().check(z.nonnegative())),
  modified_by_token: z.optional(serviceAuthorSchema),
});

export type TrainingSettingsRecord = StoredRecord<typeof trainingSettingsItemSchema>;
export type SettingsScope = { kind: 'site' } | { kind: 'guide' | 'wiki'; docid: number };

export function settingsKey(scope: SettingsScope) {
  return {
    pk: scope.kind === 'site' ? 'TRAINSET#SITE' : `TRAINSET#${scope.kind.toUpperCase()}#${scope.docid}`,
    sk: 'SETTINGS',
  };
}

export const EMPTY_SETTINGS: TrainingSettingsRecord = {
  gate_mode: null,
  min_level: null,
  acknowledgement_strictness: null,
  acknowledgement_due_days: null,
  audience_userids: [],
  level_names: null,
  modified_date: 0,
  modified_by: null,
};

export async function getTrainingSettings(scope: SettingsScope): Promise<TrainingSettingsRecord> {
  const item = await getItem(settingsKey(scope));
  return item ? recordFrom(trainingSettingsItemSchema, item) : EMPTY_SETTINGS;
}

/** The site's and a document's settings in one BatchGet: [site, document]. */
export async function getSiteAndDocumentSettings(doc: {
  kind: 'guide' | 'wiki';
  docid: number;
}): Promise<[TrainingSettingsRecord, TrainingSettingsRecord]> {
  const keys = [settingsKey({ kind: 'site' }), settingsKey(doc)];
  const items = await batchGetInOrder(keys);
  const found = new Map(items.map((item) => [String(item.pk), recordsOf(trainingSettingsItemSchema)(item)]));
  return [found.get(keys[0].pk) ?? EMPTY_SETTINGS, found.get(keys[1].pk) ?? EMPTY_SETTINGS];
}

/** Several scopes' settings in one BatchGet, in the order asked (absent: EMPTY_SETTINGS). */
export async function getManyTrainingSettings(scopes: SettingsScope[]): Promise<TrainingSettingsRecord[]> {
  const keys = scopes.map(settingsKey);
  const found = new Map(
    (await batchGetInOrder(keys)).map((item) => [String(item.pk), recordsOf(trainingSettingsItemSchema)(item)]),
  );
  return keys.map((key) => found.get(key.pk) ?? EMPTY_SETTINGS);
}

export async function putTrainingSettings(scope: SettingsScope, settings: TrainingSettingsRecord): Promise<void> {
  await putItem({ ...settingsKey(scope), entity: 'TrainingSettings', ...settings });
}
