/** How SCORM attempts are shown (decision 271): to the learner's player, in attempt lists, in a 409. */
import * as z from 'zod/mini';
import type { ModuleAttemptRecord } from '../db/entities/module-attempt.ts';

export const moduleAttemptSchema = z.object({
  moduleid: z.int(),
  userid: z.int(),
  attempt: z.int(),
  importid: z.int(),
  standard: z.enum(['scorm12', 'scorm2004']),
  /** The version a commit must name to replace this state. */
  version: z.int(),
  completion_status: z.string(),
  success_status: z.string(),
  score_raw: z.nullable(z.number()),
  score_scaled: z.nullable(z.number()),
  /** Seconds of the sessions that ended. */
  total_time: z.number(),
  satisfied: z.boolean(),
  satisfied_date: z.nullable(z.int()),
  created_date: z.int(),
  modified_date: z.int(),
  /**
   * SCORM 2004: what the last Terminate's navigation request leads to by the manifest's sequencing
   * rules (decision 335): the SCO to deliver, or the end of the session, or why nothing is delivered.
   */
  navigation: z.optional(
    z.object({
      request: z.string(),
      deliver: z.nullable(z.string()),
      end: z.boolean(),
      message: z.nullable(z.string()),
    }),
  ),
  scos: z.array(
    z.object({
      identifier: z.string(),
      completion_status: z.string(),
      success_status: z.string(),
      score_raw: z.nullable(z.number()),
      score_scaled: z.nullable(z.number()),
      total_time: z.number(),
      exit: z.string(),
      terminated: z.boolean(),
      satisfied: z.boolean(),
    }),
  ),
});

export const moduleAttemptListSchema = z.object({ attempts: z.array(moduleAttemptSchema) });

export type ModuleAttemptView = z.output<typeof moduleAttemptSchema>;

export function attemptView(record: ModuleAttemptRecord): ModuleAttemptView {
  return {
    moduleid: record.moduleid,
    userid: record.userid,
    attempt: record.attempt,
    importid: record.importid,
    standard: record.standard,
    version: record.version,
    completion_status: record.completion_status,
    success_status: record.success_status,
    score_raw: record.score_raw,
    score_scaled: record.score_scaled,
    total_time: record.total_seconds,
    satisfied: record.satisfied,
    satisfied_date: record.satisfied_date === null ? null : Math.trunc(record.satisfied_date),
    created_date: Math.trunc(record.created_date),
    modified_date: Math.trunc(record.modified_date),
    ...(record.sequencing?.delivery
      ? {
          navigation: {
            request: record.sequencing.delivery.request,
            deliver: record.sequencing.delivery.deliver,
            end: record.sequencing.delivery.end,
            message: record.sequencing.delivery.message,
          },
        }
      : {}),
    scos: Object.entries(record.scos).map(([identifier, sco]) => ({
      identifier,
      completion_status: sco.completion_status,
      success_status: sco.success_status,
      score_raw: sco.score_raw,
      score_scaled: sco.score_scaled,
      total_time: sco.total_seconds,
      exit: sco.exit,
      terminated: sco.terminated,
      satisfied: sco.satisfied,
    })),
  };
}

/** What a launch starts from: the attempt it continues, its version, and each SCO's entry and initial CMI data. */
export const launchStateSchema = z.object({
  attempt: z.int(),
  version: z.int(),
  scos: z.array(z.object({ identifier: z.string(), entry: z.string(), cmi: z.record(z.string(), z.string()) })),
  current: z.nullable(moduleAttemptSchema),
});
