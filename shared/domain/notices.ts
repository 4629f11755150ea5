/**
 * Notices (docs/notices.md): what people are told, and when. Pure rules: the kinds, the instant
 * each one falls due, who receives it and the text of its mail. The sweep (shared/training/
 * notice-sweep.ts) sends them; the queue items (shared/db/entities/notice.ts) hold the instants.
 */

export const NOTICE_KINDS = [
  'acknowledgement_requested',
  'acknowledgement_due_soon',
  'acknowledgement_overdue',
  'acknowledgement_escalated',
  'level_lapsing',
  'level_lapsed',
  'retraining_assigned',
] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/** The site's notice settings (days); a stored null falls back to these. */
export const NOTICE_SETTING_DEFAULTS = {
  /** How long before an acknowledgement's due date the person is reminded. */
  due_soon_days: 3,
  /** How long after the due date an unsigned acknowledgement is escalated to the person's team owners. */
  escalation_days: 3,
  /** How long before a level expires its holder is told. */
  lapse_soon_days: 30,
  /** The due date of a course assigned to restore a lapsed level: this many days after the lapse. */
  retraining_due_days: 14,
} as const;
export type NoticeSettings = { [K in keyof typeof NOTICE_SETTING_DEFAULTS]: number };

const DAY = 24 * 3600;

export interface QueuedNotice {
  kind: NoticeKind;
  /** When it is sent (the sweep sends what is due at or before its clock). */
  fire_at: number;
  /** The instant the notice is about: an acknowledgement's due date, a level's expiry, an assignment's creation. */
  due: number;
}

/** The notices an acknowledgement asks for, from its creation (requested at once) to its escalation. */
export function acknowledgementNotices(
  ack: { created_date: number; due_date: number },
  settings: NoticeSettings,
): QueuedNotice[] {
  const due = ack.due_date;
  return [
    { kind: 'acknowledgement_requested', fire_at: ack.created_date, due },
    {
      kind: 'acknowledgement_due_soon',
      fire_at: Math.max(ack.created_date, due - settings.due_soon_days * DAY),
      due,
    },
    { kind: 'acknowledgement_overdue', fire_at: due, due },
    { kind: 'acknowledgement_escalated', fire_at: due + settings.escalation_days * DAY, due },
  ];
}

/** The notices a level with an expiry asks for: lapsing soon, and lapsed (which also reassigns training). */
export function levelNotices(
  level: { level: number; expires_at: number | null; set_date: number },
  settings: NoticeSettings,
): QueuedNotice[] {
  if (level.level <= 0 || level.expires_at === null) return [];
  const due = level.expires_at;
  return [
    { kind: 'level_lapsing', fire_at: Math.max(level.set_date, due - settings.lapse_soon_days * DAY), due },
    { kind: 'level_lapsed', fire_at: due, due },
  ];
}

/** A notice's mail to its recipient: subject and plain text. */
export function noticeMail(
  kind: NoticeKind,
  facts: { subjectLine: string; due: number; siteUrl: string; path: string; personName?: string },
): { subject: string; text: string } {
  const when = new Date(facts.due * 1000).toISOString().slice(0, 10);
  const link = `${facts.siteUrl.replace(/\/$/, '')}${facts.path}`;
  const about = facts.subjectLine;
  const lines: Record<NoticeKind, [string, string]> = {
    acknowledgement_requested: [
      `Please read and acknowledge: ${about}`,
      `A new release concerns you. Read what changed and sign by ${when}.`,
    ],
    acknowledgement_due_soon: [`Due soon: acknowledge ${about}`, `Your acknowledgement is due on ${when}.`],
    acknowledgement_overdue: [`Overdue: acknowledge ${about}`, `Your acknowledgement was due on ${when}.`],
    acknowledgement_escalated: [
      `Overdue in your team: ${facts.personName ?? 'a member'} has not acknowledged ${about}`,
      `The acknowledgement was due on ${when}. You receive this as an owner of their team.`,
    ],
    level_lapsing: [`Your level lapses soon: ${about}`, `It expires on ${when}. Recertify before then.`],
    level_lapsed: [`Your level lapsed: ${about}`, `It expired on ${when}.`],
    retraining_assigned: [`Retraining assigned: ${about}`, `Complete it by ${when}.`],
  };
  const [subject, body] = lines[kind];
  return {
    subject,
    text: `${body}\n\n${link}\n\nChange which notices you receive: PATCH /api/2.0/notices/preferences`,
  };
}
