/** Notices (docs/notices.md): my preferences, the site's settings, the sweep run now. */
import { nowSeconds } from '../../shared/clock.ts';
import { appendAudit, auditSubject } from '../../shared/db/audit.ts';
import {
  getNoticePreferences,
  getNoticeSettingsRecord,
  noticeSettings,
  putNoticePreferences,
  noticeSettingsWrite,
} from '../../shared/db/entities/notice.ts';
import { auditActor, type Caller } from '../../shared/domain/caller.ts';
import { NOTICE_KINDS } from '../../shared/domain/notices.ts';
import { sweepNotices } from '../../shared/training/notice-sweep.ts';
import { noticePreferencesView, noticeSettingsView } from '../../shared/views/notice-views.ts';
import type { PreferencesInput, SettingsInput, SweepInput } from './notices.schemas.ts';

export async function myPreferences(caller: Caller) {
  return noticePreferencesView(await getNoticePreferences(caller.userid));
}

export async function setMyPreferences(caller: Caller, input: PreferencesInput) {
  const before = await getNoticePreferences(caller.userid);
  const record = { ...(before ?? {}), userid: caller.userid, modified_date: nowSeconds() };
  for (const kind of NOTICE_KINDS) if (input[kind] !== undefined) record[kind] = input[kind];
  await putNoticePreferences(record);
  return noticePreferencesView(record);
}

export async function siteSettings() {
  return noticeSettingsView(await noticeSettings());
}

export async function setSiteSettings(caller: Caller, input: SettingsInput) {
  const before = await getNoticeSettingsRecord();
  const record = {
    due_soon_days: before?.due_soon_days ?? null,
    escalation_days: before?.escalation_days ?? null,
    lapse_soon_days: before?.lapse_soon_days ?? null,
    retraining_due_days: before?.retraining_due_days ?? null,
  };
  for (const key of Object.keys(record) as Array<keyof typeof record>) {
    if (input[key] !== undefined) record[key] = input[key];
  }
  const stored = { ...record, modified_date: nowSeconds(), modified_by: caller.service ? null : caller.userid };
  await appendAudit(
    {
      action: 'notices.settings_changed',
      ...auditActor(caller),
      subjects: [auditSubject.site()],
      details: { old: before ?? null, new: record },
    },
    [noticeSettingsWrite(stored)],
  );
  return siteSettings();
}

export async function sweepNow(input: SweepInput) {
  const asOf = input.as_of ?? nowSeconds();
  return { as_of: asOf, ...(await sweepNotices(asOf, input.budget)) };
}
