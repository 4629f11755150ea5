/** cmi5 launches and registrations on the wire (the Admin test-driver routes; docs/lrs.md). */
import * as z from 'zod/mini';
import type { Cmi5RegistrationRecord } from '../db/entities/cmi5-registration.ts';

export const cmi5LaunchSchema = z.object({
  /** The AU's URL with endpoint, fetch, actor, registration and activityId. */
  launch_url: z.string(),
  launch_method: z.enum(['AnyWindow', 'OwnWindow']),
  registration: z.string(),
  session_id: z.string(),
  au_id: z.string(),
});

export const cmi5RegistrationSchema = z.object({
  registration: z.string(),
  moduleid: z.int(),
  userid: z.int(),
  course_id: z.string(),
  actor: z.record(z.string(), z.unknown()),
  aus: z.array(
    z.object({
      au_id: z.string(),
      completed: z.boolean(),
      passed: z.boolean(),
      failed: z.boolean(),
      waived: z.boolean(),
      satisfied: z.boolean(),
    }),
  ),
  satisfied_blocks: z.array(z.string()),
  course_satisfied: z.boolean(),
  created_date: z.int(),
});

export type Cmi5LaunchView = z.output<typeof cmi5LaunchSchema>;
export type Cmi5RegistrationView = z.output<typeof cmi5RegistrationSchema>;

export function cmi5RegistrationView(record: Cmi5RegistrationRecord): Cmi5RegistrationView {
  return {
    registration: record.registration,
    moduleid: record.moduleid,
    userid: record.userid,
    course_id: record.course_id,
    actor: JSON.parse(record.actor) as Record<string, unknown>,
    // Who waived an AU stays in storage (and the site file); the wire's AU status is unchanged.
    aus: Object.entries(record.aus).map(([au_id, { waived_by: _waivedBy, ...status }]) => ({ au_id, ...status })),
    satisfied_blocks: record.satisfied_blocks,
    course_satisfied: record.course_satisfied,
    created_date: record.created,
  };
}
