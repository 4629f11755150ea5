/** The journal of `POST /user/sync` (docs/offline.md, decision 225). */
import * as z from 'zod/mini';
import { clientGuidSchema } from '../../shared/domain/client-guid.ts';

/** Longest journal one request takes; a longer one is sent in parts (docs/offline.md). */
export const MAX_JOURNAL_ACTIONS = 500;
/** Largest journal body, in bytes of its JSON. */
export const MAX_JOURNAL_BYTES = 1_000_000;
/**
 * The same for the route's description, digits grouped by hand: `toLocaleString` would load ICU's number
 * formatting at cold start, about 10 ms of CPU for one string (decision 337).
 */
export const MAX_JOURNAL_BYTES_TEXT = String(MAX_JOURNAL_BYTES).replace(/\B(?=(\d{3})+$)/g, ',');

export const SYNC_ACTION_TYPES = [
  'work_log.start',
  'work_log.step_data',
  'work_log.pause',
  'work_log.resume',
  'work_log.finish',
  'work_log.cancel',
  /** The intent to answer a signoff request; signed only online (`pending` until confirmed). */
  'signoff.sign_intent',
  /** The intent to acknowledge a release `{releaseid}`; signed only online (decision 252). */
  'acknowledgement.sign_intent',
  /** A comment on a guide, step, wiki, info page or post. */
  'comment.create',
  /** A quiz's answers, submitted for grading (one attempt). */
  'quiz.submit',
  /** The trainee's request for a stage signoff. */
  'signoff.request',
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
   * intent `{signoff_requestid, approved?, comments?}`, acknowledgement intent `{releaseid}`; the
   * records' below.
   */
  data: z.optional(z.record(z.string(), z.unknown())),
});

export const syncBody = z.object({
  actions: z.array(syncActionSchema).check(z.minLength(1), z.maxLength(MAX_JOURNAL_ACTIONS)),
});

export type SyncAction = z.output<typeof syncActionSchema>;
export type SyncInput = z.output<typeof syncBody>;

/** `comment.create`: what `POST /comments/{context}/{contextid}` takes, with its path in the data. */
export const commentCreateData = z.object({
  context: z.string().check(z.minLength(1), z.maxLength(20)),
  contextid: z.int().check(z.positive()),
  text: z.string().check(z.maxLength(20_000)),
  parentid: z.optional(z.nullable(z.int().check(z.positive()))),
  langid: z.optional(z.string().check(z.maxLength(10))),
});

/** `quiz.submit`: what `POST /quizzes/sessions/submit` takes (`revisionid`: the quiz revision answered). */
export const quizSubmitData = z.object({
  quizid: z.int().check(z.positive()),
  response_json: z.optional(z.unknown()),
});

/** `signoff.request`: what `POST /courses/stage-sign-offs/requests` takes. */
export const signoffRequestData = z.object({
  stage_assessmentid: z.int().check(z.positive()),
  comments: z.optional(z.string().check(z.maxLength(5000))),
});
