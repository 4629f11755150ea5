/**
 * Bench section: DynamoDB round trips per request for the 20 routes of round-trip-routes.ts,
 * counted by an SDK middleware (round-trips-child.ts, a fresh process against the stack's
 * engine), with the authentication lookup cached as in a warm container. Goal (decision 182):
 * each equals the minimum its access pattern needs, the "Round trips per request" table of
 * shared/db/ACCESS-PATTERNS.md, read from there.
 * Runs on its own too: `npx tsx test/bench/round-trips.ts` (starts an in-memory stack).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../infra/repo-paths.ts';
import type { RunningStack } from '../support/local-stack-process.ts';
import { ROUND_TRIP_ROUTES } from './round-trip-routes.ts';
import { onStackOfItsOwn, runsAlone } from './alone.ts';

const HEADING = '## Round trips per request';

/** route -> minimum, from the table under HEADING in ACCESS-PATTERNS.md. */
export function minimumRoundTrips(): Map<string, number> {
  const text = readFileSync(join(REPO_ROOT, 'shared', 'db', 'ACCESS-PATTERNS.md'), 'utf8');
  const section = text.slice(text.indexOf(HEADING));
  const minimums = new Map<string, number>();
  for (const line of section.split('\n').slice(1)) {
    if (line.startsWith('#')) break;
    const cells = line.split('|').map((cell) => cell.trim());
    const route = cells[1]?.replace(/`/g, '');
    if (route && /^\d+$/.test(cells[2] ?? '')) minimums.set(route, Number(cells[2]));
  }
  return minimums;
}

export interface RoundTripRow {
  route: string;
  /** Round trips, or the error the route answered. */
  measured: number | string;
  /** The commands sent, in order (GetItem, BatchGetItem, Query...). */
  commands: string[];
  minimum: number | undefined;
}

export function measureRoundTrips(stack: RunningStack): RoundTripRow[] {
  const child = spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'test/bench/round-trips-child.ts')], {
    env: {
      ...process.env,
      DDB_ENDPOINT: stack.ddbEndpoint,
      S3_ENDPOINT: stack.s3Endpoint,
      SFN_ENDPOINT: stack.sfnEndpoint,
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  const line = child.stdout.split('\n').find((text) => text.startsWith('ROUND_TRIPS '));
  if (!line) throw new Error(`round-trip counter failed:\n${child.stderr}`);
  const measured = JSON.parse(line.slice('ROUND_TRIPS '.length)) as Record<
    string,
    { count: number; commands: string[] } | string
  >;
  const minimums = minimumRoundTrips();
  return ROUND_TRIP_ROUTES.map(({ key }) => {
    const result = measured[key];
    return typeof result === 'string'
      ? { route: key, measured: result, commands: [], minimum: minimums.get(key) }
      : { route: key, measured: result.count, commands: result.commands, minimum: minimums.get(key) };
  });
}

export function printRoundTrips(rows: RoundTripRow[]): void {
  console.log(
    '\nDynamoDB round trips per request (SDK middleware count, every attempt; authentication cached; ' +
      'minimum: shared/db/ACCESS-PATTERNS.md)',
  );
  console.table(
    rows.map((row) => ({
      route: row.route,
      measured: row.measured,
      minimum: row.minimum ?? '?',
      commands: row.commands.join(', '),
      verdict:
        typeof row.measured !== 'number' || row.minimum === undefined
          ? 'error'
          : row.measured <= row.minimum
            ? 'ok'
            : 'over',
    })),
  );
  const over = rows.filter(
    (row) => typeof row.measured !== 'number' || row.minimum === undefined || row.measured > row.minimum,
  );
  console.log(`round trips: ${rows.length - over.length} of ${rows.length} routes at their minimum`);
}

if (runsAlone(import.meta)) await onStackOfItsOwn(async (stack) => printRoundTrips(measureRoundTrips(stack)));
