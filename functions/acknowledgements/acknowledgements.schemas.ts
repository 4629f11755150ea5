/** Request schemas of the acknowledgement use cases (docs/competency.md). */
import * as z from 'zod/mini';
import { pagination } from '../../shared/http/query.ts';
import { clientGuidSchema } from '../../shared/domain/client-guid.ts';

const optionalId = z.optional(
  z.pipe(
    z.string().check(z.regex(/^\d{1,15}$/)),
    z.pipe(
      z.transform((value: string) => Number.parseInt(value, 10)),
      z.number().check(z.minimum(1)),
    ),
  ),
);

export const pendingQuery = z.object({
  teamid: optionalId,
  guideid: optionalId,
  wikiid: optionalId,
  /** The caller's acknowledgement signed with this client guid (none: an empty list). */
  client_guid: z.optional(clientGuidSchema),
  ...pagination,
});
export type PendingQuery = z.output<typeof pendingQuery>;

export const readQuery = z.object({ userid: optionalId });

export const signBody = z.object({
  /** Left out by a signer who signs through their identity provider (a fresh step-up, decision 237). */
  password: z.optional(z.string().check(z.minLength(1))),
  meaning: z.optional(z.literal('acknowledged')),
  client_guid: z.optional(clientGuidSchema),
});
export type SignInput = z.output<typeof signBody>;

export const documentSettingsBody = z.object({
  strictness: z.optional(z.nullable(z.enum(['major', 'minor']))),
  due_days: z.optional(z.nullable(z.int().check(z.minimum(1), z.maximum(3650)))),
  audience_userids: z.optional(z.array(z.int().check(z.positive())).check(z.maxLength(1000))),
});
export type DocumentSettingsInput = z.output<typeof documentSettingsBody>;

export const countersignStepsBody = z.object({
  stepids: z.array(z.int().check(z.positive())).check(z.maxLength(500)),
});
export type CountersignStepsInput = z.output<typeof countersignStepsBody>;

export const countersignBody = z.object({
  /** Left out by a supervisor who signs through their identity provider (a fresh step-up). */
  password: z.optional(z.string().check(z.minLength(1))),
  comment: z.optional(z.string().check(z.maxLength(2000))),
});
export type CountersignInput = z.output<typeof countersignBody>;
