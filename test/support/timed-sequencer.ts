/**
 * Splits the stack lanes' files by what they take, not by how many there are (decision 345). Vitest's
 * own shard sorts files by a hash of their path and cuts the list into equal counts, so one lane
 * drew route-fuzz, the site migration and the site transfers and ended two minutes after the other.
 * Here the files go, longest first, to the lane with the least recorded time so far (test/support/
 * file-durations.json, written by `npm run test:times` after a full `npm test`). Every lane computes
 * the same split from the same list, so the lanes still share no file and miss none.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const RECORDED_DURATIONS_FILE = new URL('./file-durations.json', import.meta.url);

/** What a file costs besides its tests (import, collect, the worker's start), measured between files. */
const PER_FILE_MS = 500;

export class TimedSequencer extends BaseSequencer {
  override async shard(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { shard, root } = this.ctx.config;
    if (!shard) return files;
    const paths = files.map((spec) => relative(root, spec.moduleId).split('\\').join('/'));
    const lanes = splitByDuration(paths, recordedDurations(), shard.count);
    const mine = new Set(lanes[shard.index - 1]);
    return files.filter((_, at) => mine.has(paths[at] as string));
  }
}

/** The files of each of `count` lanes: longest first, each to the lane that has the least so far. */
export function splitByDuration(paths: string[], durations: Record<string, number>, count: number): string[][] {
  const known = paths.map((path) => durations[path]).filter((ms): ms is number => typeof ms === 'number');
  // A file not yet recorded counts as a typical one.
  const typical = known.length ? (known.sort((a, b) => a - b)[Math.floor(known.length / 2)] as number) : 1;
  const costed = paths
    .map((path) => ({ path, ms: (durations[path] ?? typical) + PER_FILE_MS }))
    .sort((a, b) => b.ms - a.ms || (a.path < b.path ? -1 : 1));
  const lanes = Array.from({ length: count }, () => ({ ms: 0, paths: [] as string[] }));
  for (const file of costed) {
    const lightest = lanes.reduce((best, lane) => (lane.ms < best.ms ? lane : best));
    lightest.ms += file.ms;
    lightest.paths.push(file.path);
  }
  return lanes.map((lane) => lane.paths);
}

function recordedDurations(): Record<string, number> {
  return JSON.parse(readFileSync(RECORDED_DURATIONS_FILE, 'utf8')) as Record<string, number>;
}
