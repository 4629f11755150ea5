/**
 * kill -9 of the whole local stack in the middle of work, then a restart on the same data:
 * - a batch of guide and step writes: every acknowledged write is there, every guide that
 *   exists reads back whole (its steps complete) and is listed, and the id counter hands out
 *   fresh ids;
 * - an import by URL caught mid-download: its execution died with the process, so the import
 *   is failed as `interrupted`, and started again it completes and can be promoted.
 * File-backed stacks of their own (test/support/local-stack-process.ts), not the shared one.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, apiAt } from '../support/api.ts';
import { scorm12Package } from '../support/module-packages.ts';
import { servePackage, type PackageServer } from '../support/package-server.ts';
import { startStackOnDataDir, waitUntil, type RunningStack } from '../support/local-stack-process.ts';

const LINES = [
  { text: 'Unplug the printer.', bullet: 'black', level: 0 },
  { text: 'Wait until the nozzle is cool.', bullet: 'icon_caution', level: 1 },
];
const WRITERS = 12;
const STEPS_PER_GUIDE = 3;
const ENV = { STEPWISE_FETCH_ALLOW_HOSTS: '127.0.0.1' };

let dataDir: string;
const stacks: RunningStack[] = [];
let goodPackage: PackageServer;
/** Sends the package's first half, then nothing: the import is caught mid-download. */
let stalling: http.Server;
let stallingUrl: string;
let downloadsBegun = 0;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'stepwise-crash-'));
  const zip = await scorm12Package('Survives a Crash');
  goodPackage = await servePackage(zip);
  stalling = http.createServer((_request, response) => {
    downloadsBegun++;
    response.writeHead(200, { 'content-type': 'application/zip', 'content-length': zip.length });
    response.write(zip.subarray(0, zip.length >> 1));
  });
  await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
  stallingUrl = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}/package.zip`;
});

afterAll(async () => {
  await Promise.all(stacks.map((stack) => stack.stop()));
  stalling?.closeAllConnections();
  stalling?.close();
  await goodPackage?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: any;
}

function client(stack: RunningStack) {
  let token = '';
  const call = (method: string, path: string, body?: unknown): Promise<Answer> =>
    apiAt(stack.url, method, path, { token: token || undefined, body });
  return {
    call,
    async login() {
      const answer = await call('POST', '/user/token', ADMIN);
      expect(answer.status).toBe(201);
      token = answer.body.authToken;
    },
  };
}

/** Progress of an import once it is no longer running (a lost execution is judged after a grace period). */
async function settled(api: ReturnType<typeof client>, importid: number, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await api.call('GET', `/external_training_modules/imports/${importid}/progress`);
    expect(answer.status).toBe(200);
    if (!['created', 'running'].includes(answer.body.status)) return answer.body;
    if (Date.now() > deadline) throw new Error(`import ${importid} still ${answer.body.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('a crash of the whole local stack', () => {
  it('loses no acknowledged write, leaves nothing half-written, and interrupts (restartably) the import in flight', {
    timeout: 240_000,
  }, async () => {
    const first = await startStackOnDataDir(dataDir, ENV);
    stacks.push(first);
    const before = client(first);
    await before.login();
    const category = `Printers crash`;
    expect(
      (await before.call('POST', '/wikis', { namespace: 'CATEGORY', title: category, contents: 'Printers.' })).status,
    ).toBe(201);

    // The import: started by URL from a server that stalls halfway.
    const created = await before.call('POST', '/external_training_modules/imports', { title: 'Crash course' });
    expect(created.status).toBe(201);
    const { importid, moduleid } = created.body;
    expect(
      (await before.call('POST', `/external_training_modules/imports/${importid}/start/byUrl`, { url: stallingUrl }))
        .status,
    ).toBe(200);
    await waitUntil('the download to begin', () => downloadsBegun > 0, 60_000);

    // The batch: writers each create a guide and add steps; the stack dies while they work.
    const acknowledged = new Map<number, number>(); // guideid -> steps answered 201
    let answered = 0;
    const writers = Array.from({ length: WRITERS }, async (_, writer) => {
      try {
        const guide = await before.call('POST', '/guides', {
          category,
          type: 'how-to',
          title: `Crash guide ${writer}`,
        });
        if (guide.status !== 201) return;
        acknowledged.set(guide.body.guideid, 0);
        answered++;
        for (let orderby = 1; orderby <= STEPS_PER_GUIDE; orderby++) {
          const step = await before.call('POST', `/guides/${guide.body.guideid}/steps`, {
            orderby,
            lines: LINES,
            title: `Step ${orderby}`,
          });
          if (step.status !== 201) return;
          acknowledged.set(guide.body.guideid, orderby);
          answered++;
        }
      } catch {
        // the connection died with the stack
      }
    });
    await waitUntil('some writes to be answered', () => answered >= WRITERS / 2, 60_000);
    first.child.kill('SIGKILL');
    await Promise.all(writers);
    expect(acknowledged.size).toBeGreaterThan(0);

    const second = await startStackOnDataDir(dataDir, ENV);
    stacks.push(second);
    const after = client(second);
    await after.login();

    // Every guide that exists reads back whole; every acknowledged one exists with its steps.
    const listed = await after.call('GET', '/guides?includePrivate=1&limit=200');
    expect(listed.status).toBe(200);
    const listedIds: number[] = listed.body.map((guide: { guideid: number }) => guide.guideid);
    expect(new Set(listedIds).size).toBe(listedIds.length);
    for (const guideid of acknowledged.keys()) expect(listedIds).toContain(guideid);
    const guides = await Promise.all(listedIds.map((guideid) => after.call('GET', `/guides/${guideid}`)));
    for (const [index, guide] of guides.entries()) {
      expect(guide.status).toBe(200);
      const steps = guide.body.steps as Array<{ orderby: number; lines: Array<{ text_raw: string }> }>;
      expect(steps.length).toBeGreaterThanOrEqual(acknowledged.get(listedIds[index]!) ?? 0);
      expect(steps.map((step) => step.orderby)).toEqual(steps.map((_, index) => index + 1));
      // Lines are sent as `text` and read back as `text_raw` (wire-fidelity §2.6).
      for (const step of steps) expect(step.lines.map((line) => line.text_raw)).toEqual(LINES.map((line) => line.text));
    }
    // The id counter survived with the data: a new guide gets an id no existing guide has.
    const fresh = await after.call('POST', '/guides', { category, type: 'how-to', title: 'After the crash' });
    expect(fresh.status).toBe(201);
    expect(fresh.body.guideid).toBeGreaterThan(Math.max(...listedIds));

    // The import lost its execution: failed as interrupted, then started again it completes.
    expect(await settled(after, importid)).toMatchObject({ status: 'failed', error: { code: 'interrupted' } });
    const restarted = await after.call('POST', `/external_training_modules/imports/${importid}/start/byUrl`, {
      url: goodPackage.url,
    });
    expect(restarted.status).toBe(200);
    expect(await settled(after, importid)).toMatchObject({ status: 'complete', percent: 100, error: null });
    expect((await after.call('PUT', `/external_training_modules/${moduleid}/current`, { importid })).status).toBe(200);
  });
});
