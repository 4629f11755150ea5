/**
 * Property tests (fast-check) run with a fixed seed so CI is repeatable; the environment widens
 * them for a longer or random search (README "Other commands"):
 * - STEPWISE_PROPERTY_SEED: the seed (default below); `random` lets fast-check pick one and
 *   print it with any counterexample.
 * - STEPWISE_PROPERTY_RUNS: runs per property, instead of each property's own default.
 * test/support/property-setup.ts applies the seed to every fc.assert in the run.
 */
export const DEFAULT_PROPERTY_SEED = 20261123;

/** The seed for fc.assert, or undefined to let fast-check choose one. */
export function propertySeed(): number | undefined {
  const configured = process.env.STEPWISE_PROPERTY_SEED;
  if (configured === 'random') return undefined;
  const seed = Number(configured ?? DEFAULT_PROPERTY_SEED);
  if (!Number.isInteger(seed))
    throw new Error(`STEPWISE_PROPERTY_SEED must be an integer or "random", got ${configured}`);
  return seed;
}

/** Runs for one property: STEPWISE_PROPERTY_RUNS when set, else the property's own count. */
export function propertyRuns(defaultRuns: number): number {
  const configured = process.env.STEPWISE_PROPERTY_RUNS;
  if (configured === undefined || configured === '') return defaultRuns;
  const runs = Number(configured);
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`STEPWISE_PROPERTY_RUNS must be a positive integer, got ${configured}`);
  return runs;
}
