/**
 * SCORM 2004 sequencing rules, without I/O (issue 37, decision 335): what SCORM 2004 4th edition's
 * Sequencing and Navigation book (SN) evaluates on the activity tree with the learner's tracking
 * state, so the player delivers what the manifest's rules say.
 *
 * - Tracking state (`SequencingState`): each SCO's judged status (scorm-rollup's ActivityStatus),
 *   the objectives its CMI data reports (`cmi.objectives.n`), every activity's attempt count in
 *   this attempt of the module, and the global objectives (mapInfo targets). Clusters' statuses
 *   come from rollup (RB.1.5) over that state.
 * - Rule conditions (UP.2.1): satisfied, objectiveStatusKnown, objectiveMeasureKnown,
 *   objectiveMeasureGreaterThan / LessThan, completed, activityProgressKnown, attempted,
 *   attemptLimitExceeded, timeLimitExceeded (the attempt duration limit), always
 *   (outsideAvailableTimeRange is false), three-valued, with `not` and the rule's all/any
 *   combination; a rule fires only when true.
 * - Pre-condition rules (UP.2): skip (flow passes the activity), disabled (never delivered nor
 *   chosen), hiddenFromChoice (not choosable), stopForwardTraversal (choice may not go forward
 *   past it). Limit conditions (UP.1, decision 347): attemptLimit reached or the attempt's duration
 *   at attemptAbsoluteDurationLimit disables delivery, except for an activity that is not tracked,
 *   active (its session open) or suspended, and for the clusters holding the SCO the learner comes
 *   from (their attempt goes on). The attempt duration is what the SCOs' sessions reported in this
 *   attempt (`SequencingState.seconds`: session times summed).
 * - After a SCO's Terminate with a navigation request (TB.2.3): the exit condition rules of its
 *   ancestors from the root down, once (TB.2.1: the first that fires ends that activity's
 *   attempt and makes it the current one), then the post-condition rules (TB.2.2) of the current
 *   activity, none while it is suspended: exitParent climbs and applies the parent's, up to the
 *   root; exitAll ends the session; retry / retryAll start a new attempt on the activity / the
 *   whole tree; continue / previous replace the learner's request. When the root's attempt ended
 *   (its exit rule, or exitParent reached it) anything but a retry ends the session. Then the
 *   request: continue and previous by flow (SB.2.1-2.3, skipping what skip rules skip, stopping
 *   at a disabled or limited activity), choice (SB.2.9), exit all / suspend all end the session.
 * - Rollup (RB.1.5, shared/domain/scorm-rollup.ts) asks this engine whether a child is skipped
 *   (the `ifNotSkipped` consideration) and limited (rollup conditions).
 * - Cluster attempts (DB.2, `enteredAnew`): a SCO's new attempt starts one on each cluster it
 *   enters anew: one that does not hold where the learner comes from (the SCO launched before, or
 *   the cluster an exit rule or exitParent left: `Delivery.left`) and is not suspended.
 * - Global objectives (OB, mapInfo): a leaf's objectives read satisfied status and measure from
 *   the global objective they map to when it is known; every activity's objectives with write
 *   maps write what they know (`globalWrites`).
 * - Constrained choice (SB.2.9): preventActivation refuses a choice that would start a cluster
 *   from outside it; constrainChoice on the current SCO or an ancestor limits choice to that
 *   activity's subtree and the subtrees of the activities flow reaches from it either way
 *   (climbing out of a cluster past its last / first child, SB.2.9.2).
 * - Randomization (SR.1, SR.2: `arrangeStructure`): selectCount and reorderChildren, drawn from a
 *   seed that is the attempt's ('onEachNewAttempt') or the learner's ('once'), so a resume or a
 *   reload shows the same order without storing it.
 *
 * Not evaluated: availability windows (outsideAvailableTimeRange, beginTimeLimit, endTimeLimit)
 * and the duration limits other than attemptAbsoluteDurationLimit (activity absolute, experienced).
 * A cluster that flow leaves ends its attempt without rules: SN runs post-condition rules only
 * for the activity a Terminate ends and the ancestors exitParent climbs to.
 */
import { timespanSeconds } from './scorm-attempt.ts';
import { type ActivityStatus, rollupTree, type TreeResult, UNKNOWN_STATUS } from './scorm-rollup.ts';
import type { ScormItem, ScormSequencing, ScormStructure } from './scorm-structure.ts';

export interface ObjectiveStatus {
  satisfied: boolean | null;
  measure: number | null;
}

export interface SequencingState {
  /** Each SCO's judged status (a SCO not here was not attempted in this attempt). */
  scos: ReadonlyMap<string, ActivityStatus>;
  /** Per SCO, the objectives its CMI data reports, by objective id. */
  objectives: ReadonlyMap<string, ReadonlyMap<string, ObjectiveStatus>>;
  /** Attempts on each activity (SCO or cluster) in this attempt of the module. */
  attempts: ReadonlyMap<string, number>;
  /** Global objectives by target objective id. */
  globals: ReadonlyMap<string, ObjectiveStatus>;
  /**
   * Per SCO, the seconds its sessions in this attempt reported (session times summed, what
   * cmi.total_time says): the attempt duration the attemptAbsoluteDurationLimit is checked against.
   */
  seconds?: ReadonlyMap<string, number>;
}

export const EMPTY_SEQUENCING_STATE: SequencingState = {
  scos: new Map(),
  objectives: new Map(),
  attempts: new Map(),
  globals: new Map(),
};

type Tri = boolean | null;
type Mode = { choice: boolean; choice_exit: boolean; flow: boolean; forward_only: boolean };
const DEFAULT_MODE: Mode = { choice: true, choice_exit: true, flow: false, forward_only: false };

export interface Activity {
  id: string;
  item: ScormItem | null;
  parent: Activity | null;
  children: Activity[];
  sequencing: ScormSequencing | null;
  mode: Mode;
  /** Preorder position. */
  index: number;
}

/** A navigation request as SCORM 2004 names it (adl.nav.request). */
export type NavigationRequest =
  | { kind: 'continue' | 'previous' | 'exit' | 'exitAll' | 'suspendAll' | 'abandon' | 'abandonAll' }
  | { kind: 'choice' | 'jump'; target: string };

/** What the sequencer decides after a Terminate. */
export interface Delivery {
  /** The SCO to deliver next; null when nothing is delivered. */
  deliver: string | null;
  /** The sequencing session ends (exit all, suspend all, or continue past the last activity). */
  end: boolean;
  /** A new attempt begins on these activities (retry): their descendants' tracking starts over. */
  retry: string[];
  /** Why nothing is delivered, for the learner. */
  message: string | null;
  /** The cluster whose attempt an exit rule or exitParent ended (not on a retry): entered anew next time. */
  left?: string;
}

export function parseNavigationRequest(value: string): NavigationRequest | null {
  const target = /^\{target=([^}]{1,255})\}(choice|jump)$/.exec(value);
  if (target) return { kind: target[2] as 'choice' | 'jump', target: target[1]! };
  const kinds = ['continue', 'previous', 'exit', 'exitAll', 'suspendAll', 'abandon', 'abandonAll'] as const;
  const kind = kinds.find((entry) => entry === value);
  return kind ? { kind } : null;
}

/** A 32-bit FNV-1a hash of the seed feeding a mulberry32 generator: the same seed, the same draw. */
function generator(seed: string): () => number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) hash = Math.imul(hash ^ seed.charCodeAt(i), 0x01000193);
  let state = hash >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Selection and randomization (SR.1, SR.2): the structure with each cluster's children selected
 * (selectCount, in their order) and reordered (reorderChildren) when the timing is not 'never'.
 * `seeds.attempt` is drawn from for 'onEachNewAttempt', `seeds.learner` for 'once'.
 */
export function arrangeStructure(
  structure: ScormStructure,
  seeds: { attempt: string; learner: string },
): ScormStructure {
  const items = structure.items.filter((item) => item.organization === structure.default_organization);
  const organization = structure.organizations.find((entry) => entry.identifier === structure.default_organization);
  const childrenOf = new Map<string | null, ScormItem[]>();
  for (const item of items) childrenOf.set(item.parent, [...(childrenOf.get(item.parent) ?? []), item]);
  let changed = false;
  const arrange = (parent: string | null, sequencing: ScormSequencing | null): ScormItem[] => {
    let children = childrenOf.get(parent) ?? [];
    const randomization = sequencing?.randomization;
    if (randomization && children.length > 1) {
      const seedOf = (timing: string) =>
        timing === 'once' ? seeds.learner : timing === 'onEachNewAttempt' ? seeds.attempt : null;
      const selectSeed = seedOf(randomization.selection_timing);
      const count = randomization.select_count;
      if (selectSeed !== null && count !== null && count >= 0 && count < children.length) {
        const random = generator(`${selectSeed}#select#${parent ?? ''}`);
        const picked = new Set<number>();
        while (picked.size < count) picked.add(Math.floor(random() * children.length));
        children = children.filter((_, index) => picked.has(index));
        changed = true;
      }
      const orderSeed = seedOf(randomization.randomization_timing);
      if (orderSeed !== null && randomization.reorder_children) {
        const random = generator(`${orderSeed}#order#${parent ?? ''}`);
        children = [...children];
        for (let i = children.length - 1; i > 0; i--) {
          const j = Math.floor(random() * (i + 1));
          [children[i], children[j]] = [children[j]!, children[i]!];
        }
        changed = true;
      }
    }
    return children.flatMap((child) => [child, ...arrange(child.identifier, child.sequencing)]);
  };
  const arranged = arrange(null, organization?.sequencing ?? null);
  if (!changed) return structure;
  const others = structure.items.filter((item) => item.organization !== structure.default_organization);
  return { ...structure, items: [...arranged, ...others] };
}

function buildTree(structure: ScormStructure): { root: Activity; byId: Map<string, Activity>; order: Activity[] } {
  const organization = structure.organizations.find((entry) => entry.identifier === structure.default_organization);
  const root: Activity = {
    id: structure.default_organization,
    item: null,
    parent: null,
    children: [],
    sequencing: organization?.sequencing ?? null,
    mode: organization?.sequencing?.control_mode ?? DEFAULT_MODE,
    index: 0,
  };
  const byId = new Map<string, Activity>();
  const order: Activity[] = [root];
  for (const item of structure.items) {
    if (item.organization !== structure.default_organization) continue;
    const parent = item.parent === null ? root : byId.get(item.parent);
    if (!parent) continue;
    const node: Activity = {
      id: item.identifier,
      item,
      parent,
      children: [],
      sequencing: item.sequencing,
      mode: item.sequencing?.control_mode ?? DEFAULT_MODE,
      index: order.length,
    };
    parent.children.push(node);
    byId.set(item.identifier, node);
    order.push(node);
  }
  return { root, byId, order };
}

const isLeaf = (node: Activity) => node.children.length === 0;
const launchable = (node: Activity) => isLeaf(node) && node.item?.launch != null;

function ancestorsOf(node: Activity): Activity[] {
  const out: Activity[] = [];
  for (let at = node.parent; at; at = at.parent) out.push(at);
  return out;
}

const isDescendant = (node: Activity, of: Activity) => ancestorsOf(node).includes(of);

function commonAncestor(a: Activity, b: Activity): Activity {
  const above = new Set([a, ...ancestorsOf(a)]);
  for (let at: Activity | null = b; at; at = at.parent) if (above.has(at)) return at;
  return a;
}

type Traversed = { to: Activity } | { end: true } | { none: string };

/** The sequencing engine over one state: rules, flow, choice and the post-Terminate process. */
export class Sequencer {
  readonly root: Activity;
  private readonly byId: Map<string, Activity>;
  private readonly statuses: Map<string, ActivityStatus>;
  /** Rollup of the tree with the globals read (the module's result is its root's). */
  readonly rollup: TreeResult;

  constructor(
    readonly structure: ScormStructure,
    private readonly state: SequencingState = EMPTY_SEQUENCING_STATE,
  ) {
    const tree = buildTree(structure);
    this.root = tree.root;
    this.byId = tree.byId;
    // A SCO's primary objective reads its global objective when that is known (mapInfo read).
    const scos = new Map<string, ActivityStatus>();
    for (const [id, status] of state.scos) {
      const node = this.byId.get(id);
      const primary = node ? primaryObjective(node.sequencing) : null;
      scos.set(id, primary ? { ...status, ...this.readGlobals(primary, status) } : status);
    }
    for (const node of tree.order) {
      const primary = launchable(node) && !scos.has(node.id) ? primaryObjective(node.sequencing) : null;
      const read = primary ? this.readGlobals(primary, UNKNOWN_STATUS) : null;
      if (read && (read.satisfied !== null || read.measure !== null)) scos.set(node.id, { ...UNKNOWN_STATUS, ...read });
    }
    // Rollup asks the rules about a child whose status is already rolled up (children first).
    this.statuses = new Map();
    const hooks = {
      skipped: (id: string) => {
        const node = this.byId.get(id);
        return node ? this.skipped(node) : false;
      },
      limit: (id: string, kind: 'attempt' | 'time') => {
        const node = this.byId.get(id);
        return node ? (kind === 'attempt' ? this.attemptsExhausted(node) : this.durationExceeded(node)) : false;
      },
    };
    this.rollup = rollupTree(structure, scos, hooks, this.statuses);
  }

  activity(id: string): Activity | undefined {
    return this.byId.get(id);
  }

  status(node: Activity): ActivityStatus {
    return this.statuses.get(node.id) ?? UNKNOWN_STATUS;
  }

  private readGlobals(objective: Objective, local: ObjectiveStatus): ObjectiveStatus {
    let { satisfied, measure } = local;
    // What the objective knows itself and writes to the same global is at least as new as the global.
    for (const map of objective.map_info) {
      const global = this.state.globals.get(map.target_objective_id);
      if (!global) continue;
      if (
        map.read_satisfied_status &&
        global.satisfied !== null &&
        !(map.write_satisfied_status && local.satisfied !== null)
      )
        satisfied = global.satisfied;
      if (
        map.read_normalized_measure &&
        global.measure !== null &&
        !(map.write_normalized_measure && local.measure !== null)
      )
        measure = global.measure;
    }
    return { satisfied, measure };
  }

  /** The status of one of the activity's objectives (its primary when none is named). */
  objective(node: Activity, referenced: string | null): ObjectiveStatus {
    const objectives = node.sequencing?.objectives ?? [];
    const named = referenced === null ? null : objectives.find((entry) => entry.objective_id === referenced);
    if (!named || named.primary) {
      const status = this.status(node);
      return { satisfied: status.satisfied, measure: status.measure };
    }
    const local = this.state.objectives.get(node.id)?.get(named.objective_id ?? '') ?? {
      satisfied: null,
      measure: null,
    };
    const read = this.readGlobals(named, local);
    // An objective satisfied by measure is judged by its measure (4th ed.).
    if (named.satisfied_by_measure && read.measure !== null)
      return { satisfied: read.measure >= named.min_normalized_measure, measure: read.measure };
    return read;
  }

  attemptCount(node: Activity): number {
    return this.state.attempts.get(node.id) ?? (this.status(node).attempted ? 1 : 0);
  }

  /** The attempt limit is reached (the `attemptLimitExceeded` condition). */
  attemptsExhausted(node: Activity): boolean {
    const limit = node.sequencing?.limit_conditions?.attempt_limit ?? null;
    if (limit === null || limit <= 0) return false;
    return this.attemptCount(node) >= limit;
  }

  /**
   * The attempt's duration reached attemptAbsoluteDurationLimit (the `timeLimitExceeded`
   * condition). The attempt duration is what its SCOs' sessions reported in this attempt (their
   * session times summed: the attempt does not keep wall-clock starts per activity), so time a
   * learner spends away from a suspended SCO does not count.
   */
  durationExceeded(node: Activity): boolean {
    const limit = timespanSeconds(
      'scorm2004',
      node.sequencing?.limit_conditions?.attempt_absolute_duration_limit ?? undefined,
    );
    if (limit === null || !this.status(node).attempted) return false;
    return this.attemptSeconds(node) >= limit;
  }

  /** Seconds the activity's SCOs reported in this attempt. */
  attemptSeconds(node: Activity): number {
    if (isLeaf(node)) return this.state.seconds?.get(node.id) ?? 0;
    return node.children.reduce((sum, child) => sum + this.attemptSeconds(child), 0);
  }

  /**
   * Limit Conditions Check (UP.1): an activity not tracked, active or suspended is never limited;
   * else its attempt limit or its attempt duration limit reached limits it.
   */
  limitExceeded(node: Activity): boolean {
    const status = this.status(node);
    if (node.item?.sequencing?.delivery_controls?.tracked === false) return false;
    if (status.active === true || status.suspended) return false;
    return this.attemptsExhausted(node) || this.durationExceeded(node);
  }

  private condition(node: Activity, condition: RuleCondition): Tri {
    const objective = () => this.objective(node, condition.referenced_objective);
    const status = this.status(node);
    const threshold = condition.measure_threshold ?? 0;
    switch (condition.condition) {
      case 'satisfied':
        return objective().satisfied;
      case 'objectiveStatusKnown':
        return objective().satisfied !== null;
      case 'objectiveMeasureKnown':
        return objective().measure !== null;
      case 'objectiveMeasureGreaterThan': {
        const measure = objective().measure;
        return measure === null ? null : measure > threshold;
      }
      case 'objectiveMeasureLessThan': {
        const measure = objective().measure;
        return measure === null ? null : measure < threshold;
      }
      case 'completed':
        return status.completion === 'unknown' ? null : status.completion === 'completed';
      case 'activityProgressKnown':
        return status.completion !== 'unknown';
      case 'attempted':
        return this.attemptCount(node) > 0;
      case 'attemptLimitExceeded':
        return this.attemptsExhausted(node);
      case 'timeLimitExceeded':
        return this.durationExceeded(node);
      case 'always':
        return true;
      case 'outsideAvailableTimeRange':
      case 'never':
        return false;
      default:
        return null;
    }
  }

  /** Sequencing Rules Check (UP.2): the action of the first rule with one of `actions` that fires. */
  ruleAction(node: Activity, kind: RuleKind, actions: readonly string[]): string | null {
    for (const rule of node.sequencing?.[kind] ?? []) {
      if (!actions.includes(rule.action)) continue;
      const values = rule.conditions.map((entry) => {
        const value = this.condition(node, entry);
        return entry.operator === 'not' && value !== null ? !value : value;
      });
      if (combine(values, rule.condition_combination) === true) return rule.action;
    }
    return null;
  }

  skipped(node: Activity): boolean {
    return this.ruleAction(node, 'pre_condition_rules', ['skip']) !== null;
  }

  hiddenFromChoice(node: Activity): boolean {
    return this.ruleAction(node, 'pre_condition_rules', ['hiddenFromChoice']) !== null;
  }

  private stopsForward(node: Activity): boolean {
    return this.ruleAction(node, 'pre_condition_rules', ['stopForwardTraversal']) !== null;
  }

  /**
   * Check Activity (UP.5): why the activity cannot be delivered (disabled, limit conditions), or
   * null. `inProgress`: its attempt goes on (it holds the activity the learner comes from), so it
   * is active and its limits do not apply (UP.1).
   */
  refusal(node: Activity, inProgress = false): string | null {
    if (this.ruleAction(node, 'pre_condition_rules', ['disabled']) !== null)
      return `"${title(node)}" is disabled by the module's sequencing rules`;
    if (!inProgress && this.limitExceeded(node))
      return this.attemptsExhausted(node)
        ? `"${title(node)}" has reached its limit of attempts`
        : `"${title(node)}" has reached its time limit`;
    return null;
  }

  /**
   * Why the SCO cannot be delivered: it or an ancestor is disabled or limited; null when it can.
   * `from`: the SCO the learner comes from, whose ancestors' attempts go on (not limited).
   */
  deliveryRefusal(id: string, from: string | null = null): string | null {
    const node = this.byId.get(id);
    if (!node || !launchable(node)) return `The module has no SCO "${id}"`;
    const source = from === null ? null : (this.byId.get(from) ?? null);
    for (const at of [...ancestorsOf(node).reverse().slice(1), node]) {
      const refusal = this.refusal(at, source !== null && at !== source && isDescendant(source, at));
      if (refusal) return refusal;
    }
    return null;
  }

  /** The next activity in preorder from `node` in the direction, without entering it (SB.2.1). */
  private treeStep(node: Activity, forward: boolean): Activity | 'end' | null {
    let at = node;
    for (;;) {
      const parent = at.parent;
      if (!parent) return forward ? 'end' : null;
      if (!forward && parent.mode.forward_only) return null;
      const siblings = parent.children;
      const index = siblings.indexOf(at) + (forward ? 1 : -1);
      if (index >= 0 && index < siblings.length) return siblings[index]!;
      at = parent;
    }
  }

  /** Flow Activity Traversal (SB.2.2): the leaf flow delivers when it reaches `node`. */
  private enter(node: Activity, forward: boolean, depth = 0): Traversed {
    if (depth > 10_000) return { none: 'The sequencing does not lead anywhere' };
    if (!node.parent?.mode.flow) return { none: 'Flow is not allowed here: choose from the contents' };
    if (this.skipped(node)) {
      const next = this.treeStep(node, forward);
      if (next === 'end') return { end: true };
      if (next === null) return { none: 'Nothing comes before this' };
      return this.enter(next, forward, depth + 1);
    }
    const refusal = this.refusal(node);
    if (refusal) return { none: refusal };
    if (isLeaf(node)) return launchable(node) ? { to: node } : { none: `"${title(node)}" cannot be launched` };
    const first = forward || node.mode.forward_only;
    return this.enter(first ? node.children[0]! : node.children[node.children.length - 1]!, forward, depth + 1);
  }

  /** Continue or Previous from an activity (SB.2.7, SB.2.8). */
  flow(from: Activity, forward: boolean): Traversed {
    if (!from.parent) return forward ? { end: true } : { none: 'Nothing comes before this' };
    if (!from.parent.mode.flow) return { none: 'Flow is not allowed here: choose from the contents' };
    const next = this.treeStep(from, forward);
    if (next === 'end') return { end: true };
    if (next === null) return { none: forward ? 'Nothing follows this' : 'Previous is not available here' };
    return this.enter(next, forward);
  }

  /** Start (SB.2.5): flow from the root into its first deliverable SCO; null when flow cannot. */
  start(): string | null {
    if (!this.root.mode.flow || this.root.children.length === 0) return null;
    const reached = this.enter(this.root.children[0]!, true);
    return 'to' in reached ? reached.to.id : null;
  }

  /** Choice Sequencing Request (SB.2.9): why the target may not be chosen from `current`, or null. */
  choiceRefusal(current: Activity | null, target: Activity): string | null {
    if (!launchable(target)) return `"${title(target)}" cannot be launched`;
    const path = [...ancestorsOf(target).reverse(), target];
    for (const node of path) {
      if (node !== this.root && this.hiddenFromChoice(node)) return `"${title(node)}" is hidden from choice`;
      if (node !== target && !node.mode.choice) return `"${title(node)}" does not allow choosing its parts`;
    }
    if (current && current !== target) {
      const common = commonAncestor(current, target);
      // choiceExit false: choice may not leave the activity's subtree.
      for (const node of ancestorsOf(current))
        if (node.item && !node.mode.choice_exit && !isDescendant(target, node))
          return `"${title(node)}" must be finished before leaving it`;
      // constrainChoice: the nearest constrained activity of the current one allows its flow neighbours only.
      const constrained = [current, ...ancestorsOf(current)].find(
        (node) =>
          node !== common && !isDescendant(common, node) && node.sequencing?.constrained_choice?.constrain_choice,
      );
      if (constrained && !this.nearConstrained(constrained, target))
        return `"${title(constrained)}" only allows the activities next to it`;
      // preventActivation: choice may not start an attempt on a cluster below the common ancestor.
      for (const node of path)
        if (node !== target && isDescendant(node, common) && node.sequencing?.constrained_choice?.prevent_activation)
          return `"${title(node)}" cannot be started by choice`;
      // stopForwardTraversal: going forward, no activity passed over may stop it.
      if (target.index > current.index) {
        const passed = [
          ...this.between(common, current, target),
          ...path.filter((node) => node !== target && isDescendant(node, common)),
        ];
        const stop = passed.find((node) => this.stopsForward(node));
        if (stop) return `"${title(stop)}" must be finished before going past it`;
      }
    }
    for (const node of path.slice(1)) {
      const refusal = this.refusal(node, current !== null && node !== current && isDescendant(current, node));
      if (refusal) return refusal;
    }
    return null;
  }

  /** The common ancestor's children from the current one's branch up to (not including) the target's. */
  private between(common: Activity, current: Activity, target: Activity): Activity[] {
    const branch = (node: Activity) => [node, ...ancestorsOf(node)].find((at) => at.parent === common);
    const from = branch(current);
    const to = branch(target);
    if (!from || !to) return [];
    const list = common.children;
    const out = list.slice(list.indexOf(from), list.indexOf(to));
    return current === from ? out : [current, ...out];
  }

  /**
   * SB.2.9 with constrainChoice: the target is the constrained activity, in its subtree, or in the
   * subtree of the activity flow reaches from it in the target's direction (Choice Flow Tree
   * Traversal, SB.2.9.2: past the last child of a cluster it climbs to the cluster's next sibling;
   * backward, a forwardOnly parent allows none).
   */
  private nearConstrained(constrained: Activity, target: Activity): boolean {
    if (target === constrained || isDescendant(target, constrained)) return true;
    const neighbour = this.treeStep(constrained, target.index > constrained.index);
    return neighbour !== null && neighbour !== 'end' && (target === neighbour || isDescendant(target, neighbour));
  }

  /** The SCOs the table of contents lets the learner choose from `current` (null: nothing delivered). */
  choosable(current: string | null): string[] {
    const from = current === null ? null : (this.byId.get(current) ?? null);
    return [...this.byId.values()]
      .filter((node) => launchable(node) && this.choiceRefusal(from, node) === null)
      .map((node) => node.id);
  }

  /**
   * The Overall Sequencing Process after a SCO's Terminate (TB.2.3 with the request): exit rules,
   * post-condition rules, then the learner's (or the rules') request.
   */
  afterTerminate(currentId: string, request: NavigationRequest): Delivery {
    const nothing = (message: string | null, end = false, retry: string[] = []): Delivery => ({
      deliver: null,
      end,
      retry,
      message,
    });
    let current = this.byId.get(currentId);
    if (!current) return nothing(`The module has no SCO "${currentId}"`);
    if (request.kind === 'suspendAll' || request.kind === 'exitAll' || request.kind === 'abandonAll')
      return nothing(null, true);
    if (request.kind === 'abandon') return nothing(null);
    // Sequencing Exit Action Rules (TB.2.1), once: the topmost activity from the root to the SCO's
    // parent whose exit rule fires is left (its attempt ends) and becomes the current activity.
    const exit = ancestorsOf(current)
      .reverse()
      .find((node) => this.ruleAction(node, 'exit_condition_rules', ['exit']) !== null);
    if (exit) current = exit;
    // Sequencing Post Condition Rules (TB.2.2) of the current activity, none while it is suspended;
    // exitParent ends the parent's attempt and applies its rules in turn (TB.2.3 3.3).
    let rules: 'continue' | 'previous' | null = null;
    let retryOn: Activity | null = null;
    for (let guard = 0; guard < 1000; guard++) {
      if (this.status(current).suspended) break;
      const action = this.ruleAction(current, 'post_condition_rules', [
        'exitParent',
        'exitAll',
        'retry',
        'retryAll',
        'continue',
        'previous',
      ]);
      if (action === 'exitParent') {
        if (!current.parent) return nothing(null, true);
        current = current.parent;
        continue;
      }
      if (action === 'exitAll') return nothing(null, true);
      if (action === 'retryAll') retryOn = this.root;
      else if (action === 'retry') retryOn = current;
      else if (action === 'continue' || action === 'previous') rules = action;
      break;
    }
    if (retryOn) return this.retry(retryOn);
    // TB.2.3 3.3.5: the root's attempt ended (an exit rule or exitParent reached it): the session ends.
    if (current === this.root) return nothing(null, true);
    const decided = this.request(current, request, rules);
    return current.id === currentId ? decided : { ...decided, left: current.id };
  }

  /** The Sequencing Request Process (SB.2.12) from `current` after termination: the rules' request or the learner's. */
  private request(current: Activity, request: NavigationRequest, rules: 'continue' | 'previous' | null): Delivery {
    const nothing = (message: string | null, end = false): Delivery => ({ deliver: null, end, retry: [], message });
    const kind = rules ?? request.kind;
    if (kind === 'continue' || kind === 'previous') {
      const reached = this.flow(current, kind === 'continue');
      if ('to' in reached) return { deliver: reached.to.id, end: false, retry: [], message: null };
      if ('end' in reached) return nothing(null, true);
      return nothing(reached.none);
    }
    if (request.kind === 'choice' || request.kind === 'jump') {
      const target = this.byId.get(request.target);
      if (!target) return nothing(`The module has no SCO "${request.target}"`);
      const refusal = request.kind === 'jump' ? this.deliveryRefusal(target.id) : this.choiceRefusal(current, target);
      return refusal ? nothing(refusal) : { deliver: target.id, end: false, retry: [], message: null };
    }
    // exit (SB.2.11): the activity ended; the learner chooses what comes next.
    return nothing(null);
  }

  /** Retry Sequencing Request (SB.2.10): a new attempt on the activity, delivered from its start. */
  private retry(node: Activity): Delivery {
    const retry = [node.id];
    if (isLeaf(node)) {
      const refusal = this.refusal(node);
      return refusal
        ? { deliver: null, end: false, retry: [], message: refusal }
        : { deliver: node.id, end: false, retry, message: null };
    }
    // Entered as flow enters it, but a retried cluster's own limits were checked by its rules.
    const first = node.children[0];
    const reached = first ? this.enterChild(first) : ({ none: 'The activity has nothing to deliver' } as Traversed);
    if ('to' in reached) return { deliver: reached.to.id, end: false, retry, message: null };
    return { deliver: null, end: 'end' in reached, retry, message: 'none' in reached ? reached.none : null };
  }

  /** Flow into a cluster's child after a retry: flow when the cluster has it, else its first launchable SCO. */
  private enterChild(first: Activity): Traversed {
    if (first.parent?.mode.flow) return this.enter(first, true);
    let at: Activity = first;
    while (!isLeaf(at)) at = at.children[0]!;
    return launchable(at) && !this.deliveryRefusal(at.id) ? { to: at } : { none: 'Choose from the contents' };
  }

  /**
   * The clusters a new attempt on the SCO `id` enters anew (DB.2: each activity on the way down
   * that is not active begins a new attempt, unless it resumes from suspension): those that do
   * not hold `from`, the SCO launched before (the clusters holding it are still in their
   * attempt) and are not suspended. With `from` unknown, only clusters never attempted.
   */
  enteredAnew(id: string, from: string | null): string[] {
    const node = this.byId.get(id);
    const source = from === null ? null : (this.byId.get(from) ?? null);
    if (!node) return [];
    return ancestorsOf(node)
      .filter((cluster) => {
        if ((this.state.attempts.get(cluster.id) ?? 0) === 0) return true;
        if (cluster === this.root || source === null || isDescendant(source, cluster)) return false;
        return !this.status(cluster).suspended;
      })
      .map((cluster) => cluster.id);
  }

  /** What the activities' objectives write to their global objectives (mapInfo write). */
  globalWrites(): Map<string, ObjectiveStatus> {
    const out = new Map<string, ObjectiveStatus>();
    for (const node of [this.root, ...this.byId.values()]) {
      for (const objective of node.sequencing?.objectives ?? []) {
        const status = objective.primary
          ? { satisfied: this.status(node).satisfied, measure: this.status(node).measure }
          : (this.state.objectives.get(node.id)?.get(objective.objective_id ?? '') ?? null);
        if (!status) continue;
        for (const map of objective.map_info) {
          const entry = out.get(map.target_objective_id) ?? { satisfied: null, measure: null };
          if (map.write_satisfied_status && status.satisfied !== null) entry.satisfied = status.satisfied;
          if (map.write_normalized_measure && status.measure !== null) entry.measure = status.measure;
          if (entry.satisfied !== null || entry.measure !== null) out.set(map.target_objective_id, entry);
        }
      }
    }
    return out;
  }

  /** The activity's ancestors, its parent first, the root last. */
  ancestors(id: string): string[] {
    const node = this.byId.get(id);
    return node ? ancestorsOf(node).map((at) => at.id) : [];
  }

  /** Every activity below `id` (and itself): what a retry of it starts over. */
  subtree(id: string): string[] {
    const node = id === this.root.id ? this.root : this.byId.get(id);
    if (!node) return [];
    const out: string[] = [];
    const walk = (at: Activity) => {
      if (at !== this.root) out.push(at.id);
      for (const child of at.children) walk(child);
    };
    walk(node);
    return out;
  }
}

type Objective = ScormSequencing['objectives'][number];
type RuleCondition = ScormSequencing['pre_condition_rules'][number]['conditions'][number];
type RuleKind = 'pre_condition_rules' | 'exit_condition_rules' | 'post_condition_rules';

function primaryObjective(sequencing: ScormSequencing | null): Objective | null {
  return sequencing?.objectives.find((objective) => objective.primary) ?? null;
}

function combine(values: Tri[], combination: 'all' | 'any'): Tri {
  if (values.length === 0) return combination === 'all';
  if (combination === 'all') {
    if (values.some((value) => value === false)) return false;
    return values.some((value) => value === null) ? null : true;
  }
  if (values.some((value) => value === true)) return true;
  return values.some((value) => value === null) ? null : false;
}

function title(node: Activity): string {
  return node.item?.title || node.id;
}

/** The objectives a SCO's CMI data reports (2004 `cmi.objectives.n.*`), by id. */
export function cmiObjectives(cmi: Record<string, string>): Map<string, ObjectiveStatus> {
  const out = new Map<string, ObjectiveStatus>();
  for (let n = 0; n < 1000; n++) {
    const id = cmi[`cmi.objectives.${n}.id`];
    if (id === undefined) break;
    const success = cmi[`cmi.objectives.${n}.success_status`];
    const scaled = Number(cmi[`cmi.objectives.${n}.score.scaled`] ?? '');
    const raw = cmi[`cmi.objectives.${n}.score.scaled`];
    out.set(id, {
      satisfied: success === 'passed' ? true : success === 'failed' ? false : null,
      measure: raw !== undefined && raw.trim() !== '' && Number.isFinite(scaled) ? scaled : null,
    });
  }
  return out;
}
