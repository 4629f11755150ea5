/**
 * SCORM 2004 rollup, without I/O (issue 37, decision 325): the activity tree's status from its
 * SCOs' statuses, by the sequencing the manifest declares (decision 269 keeps it as data), so the
 * module's result on the server is the tree root's, not one SCO's. What SCORM 2004 4th edition's
 * Sequencing and Navigation book (SN) calls the Overall Rollup Process (RB.1.5), evaluated
 * bottom-up from scratch on every commit:
 *
 * - Measure Rollup (RB.1.1 a): a cluster's measure is the weighted mean of its tracked children's
 *   measures (objectiveMeasureWeight, default 1); a child without a measure counts with 0, and
 *   no child with a measure leaves it unknown.
 * - Completion Measure Rollup (RB.1.1 b, 4th ed.): the weighted mean of the children's progress
 *   (progressWeight); a cluster `completedByMeasure` is completed at `minProgressMeasure` (RB.1.3 a).
 * - Objective Rollup (RB.1.2): by measure when the primary objective is `satisfiedByMeasure`
 *   (measure >= minNormalizedMeasure; no measure: unknown), else by the rollup rules (RB.1.2 b),
 *   with the SCORM default rules for an action no rule names: "all children attempted or not
 *   satisfied -> not satisfied", then "all satisfied -> satisfied" (the later rule wins).
 * - Activity Progress Rollup (RB.1.3 b): the rules, with the defaults "all attempted or not
 *   completed -> incomplete", then "all completed -> completed".
 * - Rollup Rule Check (RB.1.4): each contributing child's conditions evaluate to true, false or
 *   unknown (a status not known is unknown, `not` of unknown is unknown), combined by
 *   `conditionCombination`; the child set `all`, `any`, `none`, `atLeastCount`, `atLeastPercent`
 *   decides; no contributing child: the rule does not apply.
 * - Check Child for Rollup (RB.1.4.2): a child contributes when it is tracked, its rollup controls
 *   (rollupObjectiveSatisfied, rollupProgressCompletion) allow it, and its rollup consideration
 *   for the action holds: `ifAttempted` (attempted), `ifNotSuspended` (attempted and not
 *   suspended), `ifNotSkipped` (no skip pre-condition rule of the child applies now: the
 *   sequencer answers it through `RollupHooks.skipped`, with the child's status rolled up).
 * - Objective Rollup Using Measure (RB.1.2 a) with measureSatisfactionIfActive false: while the
 *   activity is active or suspended its measure does not decide its satisfaction (unknown). A SCO
 *   satisfied by measure is judged so too: its success status comes from its measure.
 *
 * - End Attempt Process (UP.4): a SCO whose attempt ended without setting its completion or its
 *   objective is completed / satisfied unless its delivery controls say the content sets them.
 *
 * Global objectives (mapInfo) are read into the SCOs' statuses before rollup by
 * shared/domain/scorm-sequencing.ts (decision 335). The rollup conditions `attemptLimitExceeded`
 * and `timeLimitExceeded` are the sequencer's limit checks (`RollupHooks.limit`; false without
 * it); `outsideAvailableTimeRange` is false (availability windows are not evaluated).
 * Assets do not call the runtime, so they never have a status: they do not contribute.
 */
import type { ScormItem, ScormSequencing, ScormStructure } from './scorm-structure.ts';

export type Completion = 'completed' | 'incomplete' | 'unknown';

/** What an activity's tracking says, as rollup reads it (a SCO's from its CMI data; a cluster's rolled up). */
export interface ActivityStatus {
  /** Launched at least once in this attempt (Activity Attempt Count > 0). */
  attempted: boolean;
  /** Left with exit suspend. */
  suspended: boolean;
  /** Activity is Active: delivered and its session not terminated (a cluster: a child is active); absent: false. */
  active?: boolean;
  /** The attempt on the SCO ended: terminated and not suspended (End Attempt Process, UP.4). */
  ended: boolean;
  /** 'unknown': Attempt Progress Status false. */
  completion: Completion;
  /** null: Objective Progress Status false. */
  satisfied: boolean | null;
  /** The primary objective's normalized measure (-1..1); null: Objective Measure Status false. */
  measure: number | null;
  /** Attempt completion amount (0..1); null when unknown. */
  progress: number | null;
}

export const UNKNOWN_STATUS: ActivityStatus = {
  attempted: false,
  suspended: false,
  ended: false,
  completion: 'unknown',
  satisfied: null,
  measure: null,
  progress: null,
};

/** The status of a SCO's data as the server judged it (shared/domain/scorm-attempt.ts scoResult). */
export function scoStatus(state: {
  launched: boolean;
  terminated: boolean;
  exit: string;
  completion_status: string;
  success_status: string;
  score_scaled: number | null;
  progress_measure?: number | null;
}): ActivityStatus {
  // RTE 4.2.4.1: "not attempted" maps to a known, not completed attempt (Attempt Progress Status true).
  const completion: Completion =
    state.completion_status === 'completed'
      ? 'completed'
      : state.completion_status === 'incomplete' || state.completion_status === 'not attempted'
        ? 'incomplete'
        : 'unknown';
  return {
    attempted: state.launched,
    suspended: state.exit === 'suspend',
    active: state.launched && !state.terminated,
    ended: state.terminated && state.exit !== 'suspend',
    completion,
    satisfied: state.success_status === 'passed' ? true : state.success_status === 'failed' ? false : null,
    measure: state.score_scaled,
    progress: state.progress_measure ?? null,
  };
}

type Tri = boolean | null;

interface Activity {
  identifier: string;
  sequencing: ScormSequencing | null;
  completionThreshold: ScormItem['completion_threshold'];
  /** Takes part in rollup at all (tracked, and a SCO or a cluster). */
  tracked: boolean;
  children: Activity[];
  /** A SCO's own status (null for a cluster). */
  own: ActivityStatus | null;
}

type Action = 'satisfied' | 'notSatisfied' | 'completed' | 'incomplete';
type RollupRule = NonNullable<ScormSequencing['rollup_rules']>['rules'][number];

const not = (value: Tri): Tri => (value === null ? null : !value);

/** What rollup asks of the sequencer about a child (its rules and limits read more than its status). */
export interface RollupHooks {
  /** A skip pre-condition rule of the activity applies (the `ifNotSkipped` consideration). */
  skipped?: (identifier: string) => boolean;
  /** The activity's attempt limit (`attempt`) or attempt duration limit (`time`) is reached. */
  limit?: (identifier: string, kind: 'attempt' | 'time') => boolean;
}

/** One rollup condition on a child's status (RB.1.4.1). */
function condition(name: string, status: ActivityStatus, child: Activity, hooks: RollupHooks): Tri {
  switch (name) {
    case 'satisfied':
      return status.satisfied;
    case 'objectiveStatusKnown':
      return status.satisfied !== null;
    case 'objectiveMeasureKnown':
      return status.measure !== null;
    case 'completed':
      return status.completion === 'unknown' ? null : status.completion === 'completed';
    case 'activityProgressKnown':
      return status.completion !== 'unknown';
    case 'attempted':
      return status.attempted;
    case 'attemptLimitExceeded':
      return hooks.limit?.(child.identifier, 'attempt') ?? false;
    case 'timeLimitExceeded':
      return hooks.limit?.(child.identifier, 'time') ?? false;
    case 'outsideAvailableTimeRange':
      return false;
    case 'always':
      return true;
    case 'never':
      return false;
    default:
      return null;
  }
}

function combine(values: Tri[], combination: 'all' | 'any'): Tri {
  if (combination === 'all') {
    if (values.some((value) => value === false)) return false;
    return values.some((value) => value === null) ? null : true;
  }
  if (values.some((value) => value === true)) return true;
  return values.some((value) => value === null) ? null : false;
}

const CONSIDERATION: Record<
  Action,
  'required_for_satisfied' | 'required_for_not_satisfied' | 'required_for_completed' | 'required_for_incomplete'
> = {
  satisfied: 'required_for_satisfied',
  notSatisfied: 'required_for_not_satisfied',
  completed: 'required_for_completed',
  incomplete: 'required_for_incomplete',
};

/**
 * Check Child for Rollup (RB.1.4.2): tracked, the rollup control of the action's kind set, and the
 * consideration: `ifNotSuspended` excludes a child not attempted (Activity Progress Status false)
 * or attempted and suspended; `ifAttempted` one not attempted; `ifNotSkipped` one a skip rule
 * applies to; `always` excludes none.
 */
function contributes(child: Activity, status: ActivityStatus, action: Action, hooks: RollupHooks): boolean {
  if (!child.tracked) return false;
  const controls = child.sequencing?.rollup_rules;
  const objective = action === 'satisfied' || action === 'notSatisfied';
  if (controls && (objective ? !controls.rollup_objective_satisfied : !controls.rollup_progress_completion))
    return false;
  const consideration = child.sequencing?.rollup_considerations?.[CONSIDERATION[action]] ?? 'always';
  if (consideration === 'ifAttempted') return status.attempted;
  if (consideration === 'ifNotSuspended') return status.attempted && !status.suspended;
  if (consideration === 'ifNotSkipped') return !(hooks.skipped?.(child.identifier) ?? false);
  return true;
}

/** Rollup Rule Check (RB.1.4): whether the rule fires over the contributing children. */
function fires(
  rule: RollupRule,
  action: Action,
  children: Array<[Activity, ActivityStatus]>,
  hooks: RollupHooks,
): boolean {
  const bag = children
    .filter(([child, status]) => contributes(child, status, action, hooks))
    .map(([child, status]) =>
      combine(
        rule.conditions.map((entry) => {
          const value = condition(entry.condition, status, child, hooks);
          return entry.operator === 'not' ? not(value) : value;
        }),
        rule.condition_combination,
      ),
    );
  if (bag.length === 0) return false;
  const trues = bag.filter((value) => value === true).length;
  switch (rule.child_activity_set) {
    case 'all':
      return trues === bag.length;
    case 'any':
      return trues > 0;
    case 'none':
      return bag.every((value) => value === false);
    case 'atLeastCount':
      return trues >= rule.minimum_count;
    case 'atLeastPercent':
      return trues / bag.length >= rule.minimum_percent;
  }
}

function rule(
  action: Action,
  set: RollupRule['child_activity_set'],
  combination: 'all' | 'any',
  ...conditions: Array<[string, 'noOp' | 'not']>
): RollupRule {
  return {
    child_activity_set: set,
    minimum_count: 0,
    minimum_percent: 0,
    condition_combination: combination,
    conditions: conditions.map(([name, operator]) => ({ condition: name, operator })),
    action,
  };
}

/** The SCORM default rollup rules, applied for an action no rule of the activity names (RB.1.2 b, RB.1.3 b). */
const DEFAULT_RULES: Record<Action, RollupRule> = {
  notSatisfied: rule('notSatisfied', 'all', 'any', ['attempted', 'noOp'], ['satisfied', 'not']),
  satisfied: rule('satisfied', 'all', 'all', ['satisfied', 'noOp']),
  incomplete: rule('incomplete', 'all', 'any', ['attempted', 'noOp'], ['completed', 'not']),
  completed: rule('completed', 'all', 'all', ['completed', 'noOp']),
};

/** Whether any rule for `action` fires; the default rule when the activity names none. */
function ruleFires(
  activity: Activity,
  action: Action,
  children: Array<[Activity, ActivityStatus]>,
  hooks: RollupHooks,
): boolean {
  const declared = (activity.sequencing?.rollup_rules?.rules ?? []).filter((entry) => entry.action === action);
  const rules = declared.length > 0 ? declared : [DEFAULT_RULES[action]];
  return rules.some((entry) => fires(entry, action, children, hooks));
}

/** Weighted mean over tracked children (RB.1.1): null when no child has a value. */
function weightedMean(
  children: Array<[Activity, ActivityStatus]>,
  value: (status: ActivityStatus) => number | null,
  weight: (child: Activity) => number,
): number | null {
  let counted = 0;
  let total = 0;
  let valid = false;
  for (const [child, status] of children) {
    if (!child.tracked) continue;
    const w = weight(child);
    counted += w;
    const v = value(status);
    if (v !== null) {
      valid = true;
      total += v * w;
    }
  }
  return valid && counted > 0 ? total / counted : null;
}

function primaryObjective(sequencing: ScormSequencing | null) {
  return sequencing?.objectives.find((objective) => objective.primary) ?? null;
}

/** The Overall Rollup Process for one activity (its children first). */
function statusOf(activity: Activity, out: Map<string, ActivityStatus>, hooks: RollupHooks): ActivityStatus {
  if (activity.own) {
    out.set(activity.identifier, activity.own);
    return activity.own;
  }
  const children = activity.children.map((child) => [child, statusOf(child, out, hooks)] as [Activity, ActivityStatus]);
  const active = children.some(([, child]) => child.active === true);
  const suspended = children.some(([, child]) => child.suspended);
  const measure = weightedMean(
    children,
    (status) => status.measure,
    (child) => child.sequencing?.rollup_rules?.objective_measure_weight ?? 1,
  );
  const progress = weightedMean(
    children,
    (status) => status.progress,
    (child) => child.completionThreshold?.progress_weight ?? 1,
  );

  let satisfied: boolean | null = null;
  const primary = primaryObjective(activity.sequencing);
  if (primary?.satisfied_by_measure) {
    satisfied =
      measure === null || !measureDecides(activity.sequencing, active, suspended)
        ? null
        : measure >= primary.min_normalized_measure;
  } else {
    if (ruleFires(activity, 'notSatisfied', children, hooks)) satisfied = false;
    if (ruleFires(activity, 'satisfied', children, hooks)) satisfied = true;
  }

  let completion: Completion = 'unknown';
  const threshold = activity.completionThreshold;
  if (threshold?.completed_by_measure) {
    completion =
      progress === null ? 'unknown' : progress >= threshold.min_progress_measure ? 'completed' : 'incomplete';
  } else {
    if (ruleFires(activity, 'incomplete', children, hooks)) completion = 'incomplete';
    if (ruleFires(activity, 'completed', children, hooks)) completion = 'completed';
  }

  const status: ActivityStatus = {
    attempted: children.some(([, child]) => child.attempted),
    suspended,
    active,
    ended: children.every(([, child]) => child.ended),
    completion,
    satisfied,
    measure,
    progress,
  };
  out.set(activity.identifier, status);
  return status;
}

/**
 * RB.1.2 a: a measure decides satisfaction unless the activity is active or suspended and its
 * rollup considerations say measureSatisfactionIfActive false.
 */
function measureDecides(sequencing: ScormSequencing | null, active: boolean, suspended: boolean): boolean {
  return !(active || suspended) || sequencing?.rollup_considerations?.measure_satisfaction_if_active !== false;
}

/**
 * End Attempt Process (UP.4): when a SCO's attempt ends, what the content did not set is set by
 * the LMS unless the delivery controls say the content sets it: completion to completed
 * (completionSetByContent false) and the objective to satisfied (objectiveSetByContent false),
 * except an objective satisfied by measure, which only a measure decides (RB.1.2 a).
 */
function endedAttempt(item: ScormItem, status: ActivityStatus): ActivityStatus {
  // A SCO satisfied by measure (its success status is its measure judged) while active or suspended.
  if (
    primaryObjective(item.sequencing)?.satisfied_by_measure &&
    !measureDecides(item.sequencing, status.active === true, status.suspended)
  )
    return { ...status, satisfied: null };
  if (!status.ended) return status;
  const controls = item.sequencing?.delivery_controls;
  const byMeasure = primaryObjective(item.sequencing)?.satisfied_by_measure === true;
  return {
    ...status,
    completion:
      status.completion === 'unknown' && !controls?.completion_set_by_content ? 'completed' : status.completion,
    satisfied: status.satisfied === null && !byMeasure && !controls?.objective_set_by_content ? true : status.satisfied,
  };
}

/** The default organization as an activity tree, its SCOs holding their statuses. */
function activityTree(structure: ScormStructure, scos: ReadonlyMap<string, ActivityStatus>): Activity {
  const organization = structure.organizations.find((entry) => entry.identifier === structure.default_organization);
  const items = structure.items.filter((item) => item.organization === structure.default_organization);
  const childrenOf = new Map<string | null, ScormItem[]>();
  for (const item of items) childrenOf.set(item.parent, [...(childrenOf.get(item.parent) ?? []), item]);
  const build = (item: ScormItem, depth: number): Activity => {
    const children = depth > 64 ? [] : (childrenOf.get(item.identifier) ?? []).map((child) => build(child, depth + 1));
    const leaf = children.length === 0;
    const sco = leaf && item.scorm_type === 'sco' && item.launch !== null;
    return {
      identifier: item.identifier,
      sequencing: item.sequencing,
      completionThreshold: item.completion_threshold,
      tracked: (item.sequencing?.delivery_controls?.tracked ?? true) && (sco || !leaf),
      children,
      own: leaf ? endedAttempt(item, scos.get(item.identifier) ?? UNKNOWN_STATUS) : null,
    };
  };
  return {
    identifier: structure.default_organization,
    sequencing: organization?.sequencing ?? null,
    completionThreshold: null,
    tracked: true,
    children: (childrenOf.get(null) ?? []).map((item) => build(item, 1)),
    own: null,
  };
}

export interface TreeResult {
  /** The root's (the organization's) status: the module's. */
  root: ActivityStatus;
  /** Every activity's status, clusters and SCOs, by identifier (the root under the organization's). */
  activities: Map<string, ActivityStatus>;
  /** The module is done: the root completed and not failed (passed where passing is judged). */
  satisfied: boolean;
}

/**
 * The activity tree's result from its SCOs' statuses (by identifier; a SCO not in the map was
 * never launched). The module is satisfied when the root is completed and not failed; when the
 * root is satisfied by measure it must be satisfied, and a SCO with a scaled passing score must
 * have been judged (passed or failed), as decision 271 judged a single SCO.
 */
export function rollupTree(
  structure: ScormStructure,
  scos: ReadonlyMap<string, ActivityStatus>,
  hooks: RollupHooks = {},
  activities = new Map<string, ActivityStatus>(),
): TreeResult {
  const tree = activityTree(structure, scos);
  const root = statusOf(tree, activities, hooks);
  // Passing is judged by the root's measure, or by a SCO's scaled passing score: then it must have been judged.
  const byMeasure = primaryObjective(tree.sequencing)?.satisfied_by_measure === true;
  const unjudged = structure.items.some(
    (item) =>
      item.organization === structure.default_organization &&
      item.scaled_passing_score !== null &&
      (item.sequencing?.delivery_controls?.tracked ?? true) &&
      (activities.get(item.identifier)?.satisfied ?? null) === null,
  );
  const satisfied =
    root.completion === 'completed' && !unjudged && (byMeasure ? root.satisfied === true : root.satisfied !== false);
  return { root, activities, satisfied };
}
