/**
 * One build of the local stack's embeds for the whole test run (decision 354): names a folder, not
 * made yet, in STEPWISE_SHARED_EMBED_DIR, which every stack the run starts inherits (the shared one
 * of global-setup.ts, and those test files start through local-stack-process.ts). The first stack to
 * start builds the embeds and publishes them there; the others use them (infra/local/embeds.ts).
 * The api, browser and local projects (vitest.config.ts) name this file; the first to set up makes
 * the folder, the last to tear down removes it. A folder named before the run (test/lanes.ts shares
 * one between its lanes) is used as it is and left to whoever named it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHARED_EMBED_DIR_ENV } from '../../infra/local/embeds.ts';

interface Shared {
  /** The temporary folder this run made (removed at the end), or none when the folder was named before. */
  made?: string;
  users: number;
}

const SHARED = Symbol.for('stepwise.test-embeds');
const holder = globalThis as typeof globalThis & { [SHARED]?: Shared };

export default function setup() {
  if (!holder[SHARED]) {
    const made = process.env[SHARED_EMBED_DIR_ENV] ? undefined : mkdtempSync(join(tmpdir(), 'stepwise-test-embeds-'));
    if (made) process.env[SHARED_EMBED_DIR_ENV] = join(made, 'embeds');
    holder[SHARED] = { made, users: 0 };
  }
  const shared = holder[SHARED];
  shared.users += 1;
  return () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete holder[SHARED];
    if (!shared.made) return;
    delete process.env[SHARED_EMBED_DIR_ENV];
    rmSync(shared.made, { recursive: true, force: true });
  };
}
