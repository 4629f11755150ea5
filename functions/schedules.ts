/**
 * Functions a schedule invokes, declared once for both places that run them:
 * - deployed (infra/cdk/stacks/events-stack.ts): the events stack's function `name`, built from
 *   `entry`/`exportName`, and an EventBridge rule `<name>Schedule` invoking it every `rateMinutes`;
 * - locally (infra/local/stack.ts): a timer running the same handler every `localEvery` ms (a
 *   setting of shared/config.ts; 0 never), or for the deliverer's retry sweep the local
 *   deliverer loop, which does the sweep's work and the table stream's in each round.
 */
export interface ScheduledFunction {
  /** Construct id of its function in the events stack. */
  name: 'RetrySweep' | 'NoticeSweep' | 'Cmi5AbandonSweep';
  /** What runs, in the rule's description and the local stack's log. */
  title: string;
  /** The function's description, before the rate. */
  description: string;
  rateMinutes: number;
  /** Repo-relative path of the handler module. */
  entry: string;
  exportName: 'sweep';
  /** The setting (shared/config.ts) with the local stack's interval in milliseconds; 0: never. */
  localEvery: 'STEPWISE_DELIVERER_POLL_MS' | 'STEPWISE_NOTICE_SWEEP_MS' | 'STEPWISE_CMI5_ABANDON_SWEEP_MS';
  /** `timer`: the local stack runs the handler on a timer; `deliverer`: the local deliverer loop does. */
  local: 'timer' | 'deliverer';
}

export const scheduledFunctions: readonly ScheduledFunction[] = [
  {
    name: 'RetrySweep',
    title: 'event deliverer sweep',
    description: 'Stepwise event deliverer (retries and pending events)',
    rateMinutes: 1,
    entry: 'functions/webhooks/deliverer.handler.ts',
    exportName: 'sweep',
    localEvery: 'STEPWISE_DELIVERER_POLL_MS',
    local: 'deliverer',
  },
  {
    name: 'NoticeSweep',
    title: 'notice sweep',
    description: 'Stepwise notice sweep (due and lapse notices, retraining)',
    rateMinutes: 5,
    entry: 'functions/notices/sweep.handler.ts',
    exportName: 'sweep',
    localEvery: 'STEPWISE_NOTICE_SWEEP_MS',
    local: 'timer',
  },
  {
    name: 'Cmi5AbandonSweep',
    title: 'cmi5 abandon sweep',
    description: 'Stepwise cmi5 abandon sweep (sessions left open)',
    rateMinutes: 15,
    entry: 'functions/xapi/abandon-sweep.handler.ts',
    exportName: 'sweep',
    localEvery: 'STEPWISE_CMI5_ABANDON_SWEEP_MS',
    local: 'timer',
  },
];

/** `every minute`, `every 5 minutes`. */
export function everyMinutes(minutes: number): string {
  return minutes === 1 ? 'every minute' : `every ${minutes} minutes`;
}

/** The deployed function's description: what it does and how often. */
export function scheduledFunctionDescription(schedule: ScheduledFunction): string {
  return `${schedule.description}, ${everyMinutes(schedule.rateMinutes)}`;
}

/** The one entry of this name (a typo fails at compile time). */
export function scheduledFunction(name: ScheduledFunction['name']): ScheduledFunction {
  return scheduledFunctions.find((schedule) => schedule.name === name)!;
}
