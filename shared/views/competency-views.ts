/**
 * Wire shapes of acknowledgements, skills, levels and the work-log qualification record
 * (docs/competency.md). Projections of stored records; the state (pending / overdue / signed) is
 * decided by shared/domain/competency.ts at the time of the question.
 */
import * as z from 'zod/mini';
import { authenticatedBySchema, BY_PASSWORD } from '../domain/signature-auth.ts';
import type { AcknowledgementRecord } from '../db/entities/acknowledgement.ts';
import type { SkillRecord } from '../db/entities/skill.ts';
import type { QualificationLevelRecord } from '../db/entities/qualification-level.ts';
import type { WorkLogQualificationRecord } from '../db/entities/work-log-qualification.ts';
import type { TrainingSettingsRecord } from '../db/entities/training-settings.ts';
import { acknowledgementState, DEFAULT_LEVEL_NAMES } from '../domain/competency.ts';

export const acknowledgementSchema = z.object({
  releaseid: z.int(),
  doctype: z.enum(['guide', 'wiki']),
  docid: z.int(),
  userid: z.int(),
  version: z.string(),
  revisionid: z.int(),
  base_version: z.nullable(z.string()),
  base_revisionid: z.nullable(z.int()),
  reasons: z.array(z.enum(['trainee', 'skill', 'audience'])),
  created_date: z.number(),
  due_date: z.number(),
  /** `awaiting_countersignature`: signed, marked steps not yet countersigned (not complete). */
  state: z.enum(['pending', 'overdue', 'signed', 'awaiting_countersignature', 'superseded']),
  signed_date: z.nullable(z.number()),
  signature_meaning: z.nullable(z.literal('acknowledged')),
  /** How the signer proved themselves: password, or a step-up at their identity provider (decision 237). */
  signature_authenticated_by: z.nullable(authenticatedBySchema),
  /** The device's guid the signature was sent with (decision 224); null when none. */
  client_guid: z.nullable(z.string()),
  /** Steps marked for a supervisor's countersignature when the person signed ([]: none). */
  countersign_stepids: z.array(z.int()),
  /** The supervisor's countersignature, and how they proved themselves (decisions 237, 247). */
  countersignature: z.nullable(
    z.object({ userid: z.int(), date: z.number(), comment: z.string(), authenticated_by: authenticatedBySchema }),
  ),
});
export type AcknowledgementView = z.output<typeof acknowledgementSchema>;

export function acknowledgementView(ack: AcknowledgementRecord, now: number): AcknowledgementView {
  return {
    releaseid: ack.releaseid,
    doctype: ack.doctype,
    docid: ack.docid,
    userid: ack.userid,
    version: ack.version,
    revisionid: ack.revisionid,
    base_version: ack.base_version,
    base_revisionid: ack.base_revisionid,
    reasons: ack.reasons,
    created_date: ack.created_date,
    due_date: ack.due_date,
    state:
      ack.status === 'superseded'
        ? 'superseded'
        : ack.status === 'signed' && ack.countersign_stepids?.length && !ack.countersignature
          ? 'awaiting_countersignature'
          : acknowledgementState(ack, now),
    signed_date: ack.signed_date,
    signature_meaning: ack.signature?.meaning ?? null,
    signature_authenticated_by: ack.signature ? (ack.signature.authenticated_by ?? BY_PASSWORD) : null,
    client_guid: ack.client_guid ?? null,
    countersign_stepids: ack.countersign_stepids ?? [],
    countersignature: ack.countersignature
      ? {
          userid: ack.countersignature.userid,
          date: ack.countersignature.date,
          comment: ack.countersignature.comment,
          authenticated_by: ack.countersignature.authenticated_by ?? BY_PASSWORD,
        }
      : null,
  };
}

const lineChangeSchema = z.object({ op: z.enum(['same', 'added', 'removed']), text: z.string() });

export const stepChangeSchema = z.object({
  stepid: z.int(),
  title: z.string(),
  change: z.enum(['added', 'removed', 'moved', 'changed']),
  old_position: z.nullable(z.int()),
  new_position: z.nullable(z.int()),
  title_before: z.optional(z.string()),
  lines: z.optional(z.array(lineChangeSchema)),
  images_added: z.optional(z.array(z.int())),
  images_removed: z.optional(z.array(z.int())),
});

export const revisionDiffSchema = z.object({
  from_revisionid: z.nullable(z.int()),
  to_revisionid: z.int(),
  /** Guides: the steps that changed. */
  steps: z.optional(z.array(stepChangeSchema)),
  /** Wiki pages: the text, line by line. */
  lines: z.optional(z.array(lineChangeSchema)),
});

export const acknowledgementWithDiffSchema = z.object({
  acknowledgement: acknowledgementSchema,
  diff: revisionDiffSchema,
});

export const releaseSignaturesSchema = z.object({
  releaseid: z.int(),
  signed: z.array(z.object({ userid: z.int(), signed_date: z.number(), awaiting_countersignature: z.boolean() })),
  not_signed: z.array(z.object({ userid: z.int(), due_date: z.number(), overdue: z.boolean() })),
});

export const skillSchema = z.object({
  skillid: z.int(),
  name: z.string(),
  description: z.string(),
  guideids: z.array(z.int()),
  recertification_days: z.nullable(z.int()),
  acknowledgement_strictness: z.enum(['major', 'minor']),
  created_date: z.number(),
  modified_date: z.number(),
});

export function skillView(skill: SkillRecord): z.output<typeof skillSchema> {
  const { version: _version, ...rest } = skill;
  return rest;
}

export const levelSchema = z.object({
  userid: z.int(),
  skillid: z.int(),
  level: z.int(),
  level_name: z.string(),
  expires_at: z.nullable(z.number()),
  expired: z.boolean(),
  source: z.enum(['trainer_signature', 'course_completion', 'signoff']),
  set_by_userid: z.int(),
  set_date: z.number(),
});
export type LevelView = z.output<typeof levelSchema>;

export function levelNames(settings: TrainingSettingsRecord): readonly string[] {
  return settings.level_names ?? DEFAULT_LEVEL_NAMES;
}

export function levelView(level: QualificationLevelRecord, names: readonly string[], now: number): LevelView {
  return {
    userid: level.userid,
    skillid: level.skillid,
    level: level.level,
    level_name: names[level.level] ?? String(level.level),
    expires_at: level.expires_at,
    expired: level.expires_at !== null && now >= level.expires_at,
    source: level.source,
    set_by_userid: level.set_by_userid,
    set_date: level.set_date,
  };
}

/** A cell of the dense matrix: level 0 with source null where the person holds none. */
export const matrixCellSchema = z.object({
  skillid: z.int(),
  skill_name: z.string(),
  level: z.int(),
  level_name: z.string(),
  expires_at: z.nullable(z.number()),
  expired: z.boolean(),
  source: z.nullable(z.enum(['trainer_signature', 'course_completion', 'signoff'])),
  set_by_userid: z.nullable(z.int()),
  set_date: z.nullable(z.number()),
});

export const matrixRowSchema = z.object({
  userid: z.int(),
  username: z.string(),
  skills: z.array(matrixCellSchema),
});
export type MatrixRow = z.output<typeof matrixRowSchema>;

export function matrixCell(
  skill: SkillRecord,
  level: QualificationLevelRecord | undefined,
  names: readonly string[],
  now: number,
): z.output<typeof matrixCellSchema> {
  if (!level)
    return {
      skillid: skill.skillid,
      skill_name: skill.name,
      level: 0,
      level_name: names[0] ?? '0',
      expires_at: null,
      expired: false,
      source: null,
      set_by_userid: null,
      set_date: null,
    };
  const { userid: _userid, ...view } = levelView(level, names, now);
  return { ...view, skill_name: skill.name };
}

const gateRecordSchema = {
  entryid: z.int(),
  guideid: z.int(),
  userid: z.int(),
  gate_mode: z.enum(['off', 'warn', 'block']),
  min_level: z.int(),
  outcome: z.enum(['allow', 'warn']),
  flagged: z.boolean(),
  skills: z.array(
    z.object({
      skillid: z.int(),
      name: z.string(),
      required: z.int(),
      held: z.int(),
      standing: z.enum(['current', 'none', 'expired', 'outdated']),
      level: z.int(),
      expires_at: z.nullable(z.number()),
      source: z.nullable(z.enum(['trainer_signature', 'course_completion', 'signoff'])),
    }),
  ),
  date: z.number(),
  override: z.nullable(
    z.object({
      userid: z.int(),
      date: z.number(),
      meaning: z.literal('override'),
      method: z.literal('password'),
      comment: z.string(),
      authenticated_by: authenticatedBySchema,
    }),
  ),
};

export const workLogQualificationSchema = z.object({
  ...gateRecordSchema,
  /** Earlier operators' records, oldest first, when the entry changed hands (decision 305). */
  previous: z.array(z.object(gateRecordSchema)),
});

export function workLogQualificationView(
  record: WorkLogQualificationRecord,
): z.output<typeof workLogQualificationSchema> {
  const gate = (one: Omit<WorkLogQualificationRecord, 'previous'>) => ({
    ...one,
    override: one.override ? { ...one.override, authenticated_by: one.override.authenticated_by ?? BY_PASSWORD } : null,
  });
  const { previous, ...current } = record;
  return { ...gate(current), previous: (previous ?? []).map(gate) };
}
