/**
 * The external-courses answers (issue 28 §3): inferred, in the style of the course assignment
 * reports (docs/wire-fidelity.md): epoch seconds, ids as numbers, null where absent.
 */
import * as z from 'zod/mini';

export const stageCompletionEventSchema = z.object({
  /** `<userid>-<seq>`: stable, unique, in the trainee's audit chain. */
  eventid: z.string(),
  event: z.enum(['completed', 'invalidated']),
  date: z.int(),
  userid: z.int(),
  /** false once the account is disabled (SCIM deprovisioning); its events stay. */
  user_active: z.boolean(),
  doctype: z.string(),
  docid: z.int(),
  course_assignment_stage_completionid: z.nullable(z.int()),
  revisionid: z.nullable(z.int()),
  init_date: z.nullable(z.int()),
  end_date: z.nullable(z.int()),
  manager_override_userid: z.nullable(z.int()),
  actor_userid: z.nullable(z.int()),
});

export const stageCompletionHistorySchema = z.object({
  events: z.array(stageCompletionEventSchema),
  total: z.int(),
  offset: z.int(),
  limit: z.int(),
  next_offset: z.nullable(z.int()),
});

export const externalHealthSchema = z.object({ status: z.literal('ok'), time: z.int() });

export type StageCompletionEventView = z.output<typeof stageCompletionEventSchema>;
