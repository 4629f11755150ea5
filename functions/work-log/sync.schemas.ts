/** The journal of `POST /user/sync` (docs/offline.md, decision 225). */
import * as z from 'zod/mini';
import { clientGuidSchema } from '../../shared/domain/client-guid.ts';

/** Longest journal one request takes; a longer one is sent in parts (docs/offline.md). */
export const MAX_JOURNAL_ACTIONS = 500;
/** Largest journal body, in bytes of its JSON. */
export const MAX_JOURNAL_BYTES = 1_000_000;

export const SYNC_ACTION_TYPES = [
  'work_log.start',
  'work_log.step_data',
  'work_log.pause',
  'work_log.resume',
  'work_log.finish',
  'work_log.cancel',
  /** The intent to answer a signoff request; signed only online (`pending` until confirmed). */
  'signoff.sign_intent',
] as const;
export type SyncActionType = (typeof SYNC_ACTION_TYPES)[number];

export const syncActionSchema = z.object({
  /** The action's own id, made by the device: the record it makes is named by it too. */
  client_guid: clientGuidSchema,
  type: z.enum(SYNC_ACTION_TYPES),
  /** When the device did it (epoch seconds, the device's clock). */
  device_time: z.int().check(z.positive()),
  /** The guide revision the device had when it did it; another one now is a reported conflict. */
  revisionid: z.optional(z.int().check(z.positive())),
  /** The entry acted on: its entryid, or the client_guid of the `work_log.start` that made it. */
  entry: z.optional(z.union([z.int().check(z.positive()), clientGuidSchema])),
  /**
   * The action's own fields: start `{guideid, workorderid}`, step data `{fields, stepid?}`, sign
   * intent `{signoff_requestid, approved?, comments?}`.
   */
  data: z.optional(z.record(z.string(), z.unknown())),
});

export const syncBody = z.object({
  actions: z.array(syncActionSchema).check(z.minLength(1), z.maxLength(MAX_JOURNAL_ACTIONS)),
});

export type SyncAction = z.output<typeof syncActionSchema>;
export type SyncInput = z.output<typeof syncBody>;
