/** Notices (docs/notices.md): a person's preferences, the site's settings, a sweep's outcome. */
import * as z from 'zod/mini';
import type { NoticePreferencesRecord } from '../db/entities/notice.ts';
import { NOTICE_KINDS, type NoticeKind, type NoticeSettings } from '../domain/notices.ts';

export const noticePreferencesSchema = z.object(
  Object.fromEntries(NOTICE_KINDS.map((kind) => [kind, z.boolean()])) as { [K in NoticeKind]: z.ZodMiniBoolean },
);
export type NoticePreferencesView = z.output<typeof noticePreferencesSchema>;

/** Every kind, on unless the person turned it off. */
export function noticePreferencesView(record: NoticePreferencesRecord | undefined): NoticePreferencesView {
  return Object.fromEntries(NOTICE_KINDS.map((kind) => [kind, record?.[kind] ?? true])) as NoticePreferencesView;
}

export const noticeSettingsSchema = z.object({
  due_soon_days: z.int(),
  escalation_days: z.int(),
  lapse_soon_days: z.int(),
  retraining_due_days: z.int(),
});

export function noticeSettingsView(settings: NoticeSettings): z.output<typeof noticeSettingsSchema> {
  return { ...settings };
}

export const sweepResultSchema = z.object({
  as_of: z.int(),
  handled: z.int(),
  events: z.int(),
  mails: z.int(),
  dropped: z.int(),
  retraining_assigned: z.int(),
  failed: z.int(),
  more: z.boolean(),
});
