/** Request bodies of the notices routes; the service takes their z.output. */
import * as z from 'zod/mini';
import { NOTICE_KINDS, type NoticeKind } from '../../shared/domain/notices.ts';

export const preferencesBody = z.strictObject(
  Object.fromEntries(NOTICE_KINDS.map((kind) => [kind, z.optional(z.boolean())])) as {
    [K in NoticeKind]: z.ZodMiniOptional<z.ZodMiniBoolean>;
  },
);

const days = z.optional(z.nullable(z.int().check(z.minimum(0), z.maximum(3650))));
export const settingsBody = z.strictObject({
  due_soon_days: days,
  escalation_days: days,
  lapse_soon_days: days,
  retraining_due_days: days,
});

/** The sweep's clock: epoch seconds, within a century of now either way (default: now). */
export const sweepBody = z.strictObject({
  as_of: z.optional(z.int().check(z.minimum(0), z.maximum(4_102_444_800))),
  budget: z.optional(z.int().check(z.minimum(1), z.maximum(20_000))),
});

export type PreferencesInput = z.output<typeof preferencesBody>;
export type SettingsInput = z.output<typeof settingsBody>;
export type SweepInput = z.output<typeof sweepBody>;
