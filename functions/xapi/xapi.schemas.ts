/** Request bodies of the LRS admin routes; the service takes their z.output. */
import * as z from 'zod/mini';
import { LRS_SCOPES } from '../../shared/domain/xapi/scopes.ts';

export const createLrsCredentialBody = z.object({
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
  scopes: z.array(z.enum(LRS_SCOPES)).check(
    z.minLength(1),
    z.refine((scopes) => new Set(scopes).size === scopes.length, 'Each scope may be named once'),
  ),
});

export const lrsCredentialParams = z.object({ key: z.string().check(z.regex(/^[0-9a-f]{20}$/)) });

export type CreateLrsCredentialInput = z.output<typeof createLrsCredentialBody>;

const uuid = z.string().check(z.regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/));

/** A test driver's launch of a cmi5 AU for a learner (decision 310). */
export const cmi5LaunchBody = z.object({
  moduleid: z.int().check(z.positive()),
  userid: z.int().check(z.positive()),
  /** The AU's id (IRI); the course's first AU when absent. */
  au_id: z.optional(z.string().check(z.minLength(1), z.maxLength(2000))),
  /** An existing registration of this learner and module; a new one when absent. */
  registration: z.optional(uuid),
  launch_mode: z._default(z.enum(['Normal', 'Browse', 'Review']), 'Normal'),
  return_url: z.optional(z.url({ protocol: /^https?$/ }).check(z.maxLength(2000))),
});

export const cmi5WaiveBody = z.object({
  au_id: z.string().check(z.minLength(1), z.maxLength(2000)),
  reason: z.enum(['Tested Out', 'Equivalent AU', 'Equivalent Outside Activity', 'Administrative']),
});

export const abandonStaleBody = z.object({
  older_than_seconds: z._default(z.int().check(z.minimum(0), z.maximum(30 * 24 * 3600)), 24 * 3600),
});

// Any text: an unknown (or malformed) registration or session is a 404 from the service.
export const cmi5RegistrationParams = z.object({ registration: z.string().check(z.maxLength(64)) });
export const cmi5SessionParams = z.object({ session_id: z.string().check(z.maxLength(64)) });

export type Cmi5LaunchInput = z.output<typeof cmi5LaunchBody>;
export type Cmi5WaiveInput = z.output<typeof cmi5WaiveBody>;
export type AbandonStaleInput = z.output<typeof abandonStaleBody>;
