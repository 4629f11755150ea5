/**
 * Where a local stack's embeds come from (infra/local/embeds.ts, decision 354): the stacks of a test
 * run share one build in STEPWISE_SHARED_EMBED_DIR, honoured only on the local runtime; `npm start`
 * builds its own at every start.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localEmbeds, SHARED_EMBED_DIR_ENV } from '../../infra/local/embeds.ts';
import { EMBED_FILE } from '../../shared/http/embedded.ts';

const root = mkdtempSync(join(tmpdir(), 'stepwise-embeds-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A build that writes every embed file with `mark` inside, and counts its runs. */
function builder(mark: string) {
  const runs: string[] = [];
  const build = async (folder: string) => {
    runs.push(folder);
    mkdirSync(folder, { recursive: true });
    for (const name of Object.values(EMBED_FILE)) writeFileSync(join(folder, name), mark);
  };
  return { runs, build };
}

const local = (shared: string) => ({ STEPWISE_RUNTIME: 'local', [SHARED_EMBED_DIR_ENV]: shared });

describe('localEmbeds', () => {
  it('with a shared folder: the first start builds and publishes it, later starts only name it', async () => {
    const shared = join(root, 'run-1', 'embeds');
    const first = builder('first');
    const built = await localEmbeds({ build: first.build, env: local(shared) });
    expect(built).toMatchObject({ folder: shared, built: true });
    expect(first.runs).toHaveLength(1);
    expect(first.runs[0]).not.toBe(shared);

    const later = builder('later');
    const reused = await localEmbeds({ dataDir: join(root, 'data'), build: later.build, env: local(shared) });
    expect(reused).toMatchObject({ folder: shared, built: false });
    expect(later.runs).toEqual([]);
    // A stack's stop leaves the run's folder to the run, and nothing half-built stays beside it.
    await built.remove();
    await reused.remove();
    expect(readFileSync(join(shared, EMBED_FILE.openApi), 'utf8')).toBe('first');
    expect(readdirSync(join(root, 'run-1'))).toEqual(['embeds']);
  });

  it('two starts building at once: the one that publishes second uses the first one and drops its own', async () => {
    const shared = join(root, 'run-2', 'embeds');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = builder('slow');
    const slowStart = localEmbeds({
      build: async (folder) => {
        await held;
        await slow.build(folder);
      },
      env: local(shared),
    });
    const fast = await localEmbeds({ build: builder('fast').build, env: local(shared) });
    release();
    const late = await slowStart;
    expect(slow.runs).toHaveLength(1);
    expect([fast.folder, late.folder]).toEqual([shared, shared]);
    expect(readFileSync(join(shared, EMBED_FILE.pageClient), 'utf8')).toBe('fast');
    expect(readdirSync(join(root, 'run-2'))).toEqual(['embeds']);
  });

  it('ignores the shared folder off the local runtime, and builds its own temporary folder, removed at stop', async () => {
    const shared = join(root, 'run-3', 'embeds');
    const own = builder('own');
    const embeds = await localEmbeds({
      build: own.build,
      env: { STEPWISE_RUNTIME: 'aws', [SHARED_EMBED_DIR_ENV]: shared },
    });
    expect(embeds.built).toBe(true);
    expect(embeds.folder).not.toBe(shared);
    expect(existsSync(shared)).toBe(false);
    await embeds.remove();
    expect(existsSync(embeds.folder)).toBe(false);
  });

  it('without a shared folder (npm start): builds into the data directory at every start and keeps it', async () => {
    const dataDir = join(root, 'data-2');
    const own = builder('own');
    for (let start = 0; start < 2; start += 1) {
      const embeds = await localEmbeds({ dataDir, build: own.build, env: { STEPWISE_RUNTIME: 'local' } });
      expect(embeds).toMatchObject({ folder: join(dataDir, 'embeds'), built: true });
      await embeds.remove();
    }
    expect(own.runs).toHaveLength(2);
    expect(existsSync(join(dataDir, 'embeds', EMBED_FILE.routeManifest))).toBe(true);
  });

  it('refuses a shared folder that holds files but not every embed', async () => {
    const shared = join(root, 'run-4', 'embeds');
    mkdirSync(shared, { recursive: true });
    writeFileSync(join(shared, EMBED_FILE.openApi), '{}');
    await expect(localEmbeds({ build: builder('x').build, env: local(shared) })).rejects.toThrow(SHARED_EMBED_DIR_ENV);
    expect(readdirSync(join(root, 'run-4'))).toEqual(['embeds']);
  });
});
