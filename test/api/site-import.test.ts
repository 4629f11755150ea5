/**
 * Site import over HTTP: a source stack is populated and exported, and the file imported into a
 * second, empty stack (both started here: the shared stack changes while other files run).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';
import { exportSite, importSite, siteAt, type Site } from '../support/site-transfer.ts';

const ADMIN_ENV = { STEPWISE_ADMIN_EMAIL: 'admin@example.com', STEPWISE_ADMIN_PASSWORD: 'stepwise-admin' };
let stacks: RunningStack[] = [];
let source: Site;
let target: Site;

beforeAll(async () => {
  stacks = await Promise.all([startStackProcess(ADMIN_ENV), startStackProcess(ADMIN_ENV)]);
  source = siteAt(stacks[0]!.url);
  target = siteAt(stacks[1]!.url);
}, 180_000);

afterAll(async () => {
  await Promise.all(stacks.map((stack) => stack.stop()));
});

describe('round trip', () => {
  let file: Buffer;

  it('imports an export into an empty site', async () => {
    file = (await exportSite(source)).file;
    const dry = await importSite(target, file, { dry_run: true });
    console.log(JSON.stringify(dry, null, 1));
    expect(dry.status).toBe('validated');
    const done = await importSite(target, file);
    console.log(JSON.stringify(done, null, 1));
    expect(done.status).toBe('complete');
    const again = await importSite(target, file);
    console.log(JSON.stringify(again, null, 1));
    expect(again.status).toBe('complete');
    expect(again.report.written).toBe(0);
  });
});
