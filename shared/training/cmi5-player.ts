/**
 * What the player page (`/ExternalTrainingModule/{id}`, functions/pages) shows of a cmi5 module
 * (docs/lrs.md, "From the course page"): the course's AUs in document order with the block each
 * sits in, how each launches, and what the LMS judged of each in the learner's registration of the
 * current version; and the origins the AUs run on (the page lets its launch forms go there).
 * The launch itself is the xapi group's (`POST /ExternalTrainingModule/{id}/cmi5`).
 */
import { launchPath } from '../domain/package-paths.ts';
import type { Cmi5Au } from '../domain/xapi/cmi5-structure.ts';
import { type Cmi5AuStatus, latestCmi5Registration } from '../db/entities/cmi5-registration.ts';
import type { ModuleImportRecord } from '../db/entities/module-import.ts';
import { contentOrigin } from '../storage/module-content.ts';
import type { PlayerMode } from './module-player.ts';

export interface Cmi5PlayerAu {
  id: string;
  title: string;
  /** The title of the block the AU sits in; null at the course's top. */
  block: string | null;
  launch_method: Cmi5Au['launch_method'];
  move_on: Cmi5Au['move_on'];
  status: Cmi5AuStatus | null;
}

export interface Cmi5Player {
  title: string;
  course_satisfied: boolean;
  aus: Cmi5PlayerAu[];
  /** Where the AUs run: the content origin for AUs in the package, the origins of absolute AU URLs. */
  origins: string[];
}

/** The page's view of a cmi5 course: null when the version is not a cmi5 course. */
export async function cmi5Player(
  userid: number,
  mode: PlayerMode,
  record: ModuleImportRecord,
): Promise<Cmi5Player | null> {
  const course = record.manifest?.cmi5;
  if (!course) return null;
  const latest = mode === 'learner' ? await latestCmi5Registration(record.moduleid, userid) : undefined;
  const registration = latest?.importid === record.importid ? latest : undefined;
  const blocks = new Map(course.blocks.map((block) => [block.id, block.title]));
  const origins = new Set<string>();
  for (const au of course.aus) origins.add(new URL(launchPath(au.url) === null ? au.url : contentOrigin()).origin);
  return {
    title: course.title,
    course_satisfied: registration?.course_satisfied ?? false,
    aus: course.aus.map((au) => ({
      id: au.id,
      title: au.title,
      block: au.parent === null ? null : (blocks.get(au.parent) ?? null),
      launch_method: au.launch_method,
      move_on: au.move_on,
      status: registration?.aus[au.id] ?? null,
    })),
    origins: [...origins],
  };
}
