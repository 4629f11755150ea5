/**
 * The stored shape of a SCORM package's structure (what shared/domain/scorm-manifest.ts reads out of
 * imsmanifest.xml): its zod schemas and types. A file of its own, without the XML parser, so the
 * module-import entity, which most API bundles reach, validates stored structures without loading
 * fast-xml-parser at every cold start (decision 323).
 */
import * as z from 'zod/mini';

const nullableString = z.nullable(z.string());
const nullableNumber = z.nullable(z.number());

export const ruleConditionSchema = z.object({
  condition: z.string(),
  operator: z.enum(['noOp', 'not']),
  referenced_objective: nullableString,
  measure_threshold: nullableNumber,
});

export const sequencingRuleSchema = z.object({
  condition_combination: z.enum(['all', 'any']),
  conditions: z.array(ruleConditionSchema),
  action: z.string(),
});

export const rollupRuleSchema = z.object({
  child_activity_set: z.enum(['all', 'any', 'none', 'atLeastCount', 'atLeastPercent']),
  minimum_count: z.int(),
  minimum_percent: z.number(),
  condition_combination: z.enum(['all', 'any']),
  conditions: z.array(z.object({ condition: z.string(), operator: z.enum(['noOp', 'not']) })),
  action: z.string(),
});

const mapInfoSchema = z.object({
  target_objective_id: z.string(),
  read_satisfied_status: z.boolean(),
  read_normalized_measure: z.boolean(),
  write_satisfied_status: z.boolean(),
  write_normalized_measure: z.boolean(),
});

export const objectiveSchema = z.object({
  /** Absent on a primary objective that names none. */
  objective_id: nullableString,
  primary: z.boolean(),
  satisfied_by_measure: z.boolean(),
  min_normalized_measure: z.number(),
  map_info: z.array(mapInfoSchema),
});

/** An item's or organization's sequencing definition (IMS SS 1.0 with the ADL extensions); absent parts are null. */
export const sequencingSchema = z.object({
  control_mode: z.nullable(
    z.object({
      choice: z.boolean(),
      choice_exit: z.boolean(),
      flow: z.boolean(),
      forward_only: z.boolean(),
      use_current_attempt_objective_info: z.boolean(),
      use_current_attempt_progress_info: z.boolean(),
    }),
  ),
  pre_condition_rules: z.array(sequencingRuleSchema),
  exit_condition_rules: z.array(sequencingRuleSchema),
  post_condition_rules: z.array(sequencingRuleSchema),
  limit_conditions: z.nullable(
    z.object({ attempt_limit: z.nullable(z.int()), attempt_absolute_duration_limit: nullableString }),
  ),
  rollup_rules: z.nullable(
    z.object({
      rollup_objective_satisfied: z.boolean(),
      rollup_progress_completion: z.boolean(),
      objective_measure_weight: z.number(),
      rules: z.array(rollupRuleSchema),
    }),
  ),
  objectives: z.array(objectiveSchema),
  randomization: z.nullable(
    z.object({
      randomization_timing: z.string(),
      select_count: z.nullable(z.int()),
      reorder_children: z.boolean(),
      selection_timing: z.string(),
    }),
  ),
  delivery_controls: z.nullable(
    z.object({ tracked: z.boolean(), completion_set_by_content: z.boolean(), objective_set_by_content: z.boolean() }),
  ),
  constrained_choice: z.nullable(z.object({ prevent_activation: z.boolean(), constrain_choice: z.boolean() })),
  rollup_considerations: z.nullable(
    z.object({
      required_for_satisfied: z.string(),
      required_for_not_satisfied: z.string(),
      required_for_completed: z.string(),
      required_for_incomplete: z.string(),
      measure_satisfaction_if_active: z.boolean(),
    }),
  ),
});

/** One item of an organization, in document order; `parent` is null at the organization's top. */
export const scormItemSchema = z.object({
  identifier: z.string(),
  organization: z.string(),
  parent: nullableString,
  depth: z.int(),
  title: z.string(),
  isvisible: z.boolean(),
  /** The resource (identifierref) and what it launches; null for an item that only groups others. */
  resource: nullableString,
  scorm_type: z.nullable(z.enum(['sco', 'asset'])),
  /** The resource's href with every xml:base applied, without the item's parameters. */
  href: nullableString,
  parameters: nullableString,
  /** href and parameters as the player opens them. */
  launch: nullableString,
  /** SCORM 1.2: adlcp:masteryscore (0-100), adlcp:prerequisites. */
  mastery_score: nullableNumber,
  prerequisites: nullableString,
  /** adlcp:maxtimeallowed (1.2, HH:MM:SS) or the limit conditions' attemptAbsoluteDurationLimit (2004, ISO 8601). */
  max_time_allowed: nullableString,
  time_limit_action: nullableString,
  data_from_lms: nullableString,
  /** SCORM 2004: adlcp:completionThreshold (3rd edition: the value; 4th: its attributes). */
  completion_threshold: z.nullable(
    z.object({ completed_by_measure: z.boolean(), min_progress_measure: z.number(), progress_weight: z.number() }),
  ),
  /** SCORM 2004: the primary objective's minNormalizedMeasure when satisfiedByMeasure (cmi.scaled_passing_score). */
  scaled_passing_score: nullableNumber,
  sequencing: z.nullable(sequencingSchema),
});

export const scormStructureSchema = z.object({
  /** '1.2', '2004 2nd Edition' (CAM 1.3), '2004 3rd Edition', '2004 4th Edition'. */
  edition: z.enum(['1.2', '2004 2nd Edition', '2004 3rd Edition', '2004 4th Edition']),
  default_organization: z.string(),
  organizations: z.array(
    z.object({
      identifier: z.string(),
      title: z.string(),
      objectives_global_to_system: z.boolean(),
      shared_data_global_to_system: z.boolean(),
      sequencing: z.nullable(sequencingSchema),
    }),
  ),
  items: z.array(scormItemSchema),
});

export type ScormStructure = z.output<typeof scormStructureSchema>;
export type ScormItem = z.output<typeof scormItemSchema>;
export type ScormSequencing = z.output<typeof sequencingSchema>;

/** The default organization's items in document order: what a table of contents lists. */
export function tableOfContents(structure: ScormStructure): ScormItem[] {
  return structure.items.filter((item) => item.organization === structure.default_organization);
}

/** The items a learner launches (those with a resource), in the default organization's order. */
export function launchableItems(structure: ScormStructure): ScormItem[] {
  return structure.items.filter((item) => item.organization === structure.default_organization && item.launch);
}

/** Every package path the structure launches (each must be in the package). */
export function launchedPaths(structure: ScormStructure): string[] {
  return [...new Set(structure.items.flatMap((item) => (item.href ? [item.href] : [])))];
}
