/**
 * Where a local stack's build-time embeds (RouteGroup.embeds: route manifest, OpenAPI document, page
 * client, the docs renderer and SCORM runtime files) come from. They depend on the sources alone, so
 * the stacks of one test run share one build (decision 354): the harness names a folder in
 * STEPWISE_SHARED_EMBED_DIR that does not exist yet (test/support/embeds-setup.ts); the first stack
 * builds its embeds, publishes them there with one rename, and every later stack only names that
 * folder. Honoured only with STEPWISE_RUNTIME=local. Without it (`npm start`) every start builds its
 * own, so an edit shows at the next start.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { EMBED_FILE } from '../../shared/http/embedded.ts';

/** A folder (missing until the first stack publishes) the stacks of one test run share. */
export const SHARED_EMBED_DIR_ENV = 'STEPWISE_SHARED_EMBED_DIR';

export interface LocalEmbeds {
  /** The folder holding every file of EMBED_FILE, for STEPWISE_EMBED_DIR. */
  folder: string;
  /** Whether this start built the files (false: it found them published). */
  built: boolean;
  /** Removes the folder where it is this stack's own temporary one; a data directory's or a shared one stays. */
  remove(): Promise<void>;
}

/** Whether `folder` holds every embed file: a published folder is whole (it appears by one rename). */
function complete(folder: string): boolean {
  return Object.values(EMBED_FILE).every((name) => existsSync(join(folder, name)));
}

/** The shared folder this process may use: named, and only on the local runtime. */
export function sharedEmbedFolder(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env[SHARED_EMBED_DIR_ENV];
  return named && env.STEPWISE_RUNTIME === 'local' ? resolve(named) : undefined;
}

/**
 * The embed files for one stack start. `build` writes every file of EMBED_FILE into the folder it
 * is given. With a shared folder: found whole, it is used as it is; otherwise built beside it and
 * renamed into place, and when another stack published first (the rename finds the folder
 * there), that one is used and this build removed. Without one: built into `<dataDir>/embeds`
 * or, in memory, into a temporary folder removed at stop.
 */
export async function localEmbeds(options: {
  dataDir?: string;
  build: (folder: string) => Promise<void>;
  env?: NodeJS.ProcessEnv;
}): Promise<LocalEmbeds> {
  const shared = sharedEmbedFolder(options.env);
  const kept = async () => undefined;
  if (shared) {
    if (complete(shared)) return { folder: shared, built: false, remove: kept };
    await mkdir(dirname(shared), { recursive: true });
    const own = await mkdtemp(`${shared}.building-`);
    await options.build(own);
    try {
      await rename(own, shared);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
      await rm(own, { recursive: true, force: true });
      if (!complete(shared)) throw new Error(`${SHARED_EMBED_DIR_ENV} (${shared}) lacks embed files`);
    }
    return { folder: shared, built: true, remove: kept };
  }
  if (options.dataDir) {
    const folder = join(options.dataDir, 'embeds');
    await options.build(folder);
    return { folder, built: true, remove: kept };
  }
  const folder = await mkdtemp(join(tmpdir(), 'stepwise-embeds-'));
  await options.build(folder);
  return { folder, built: true, remove: () => rm(folder, { recursive: true, force: true }) };
}
