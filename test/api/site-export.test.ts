/**
 * Site export over HTTP, on a stack of its own (the shared one changes while other files run):
 * the parts download, parse, and hold the whole site.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';
import { exportSite, recordsOf, sha256, siteAt, type Site } from '../support/site-transfer.ts';

let stack: RunningStack;
let site: Site;

beforeAll(async () => {
  stack = await startStackProcess({ STEPWISE_ADMIN_EMAIL: 'admin@example.com', STEPWISE_ADMIN_PASSWORD: 'stepwise-admin' });
  site = siteAt(stack.url);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('export', () => {
  it('writes the site as parts that parse, end with the end record and match its counts', async () => {
    const { view, file } = await exportSite(site);
    const records = recordsOf(file);
    expect(records[0]).toMatchObject({ type: 'header', format: 'stepwise-site', format_version: 1 });
    const end = records.at(-1);
    expect(end.type).toBe('end');
    expect(end.records).toBe(records.length - 1);
    const counts: Record<string, number> = {};
    for (const record of records.filter((r) => r.type === 'item')) counts[record.entity] = (counts[record.entity] ?? 0) + 1;
    expect(end.counts).toEqual(counts);
    expect(view.counts).toEqual(counts);
    expect(Object.keys(counts).filter((name) => name.startsWith('Unknown:'))).toEqual([]);
    console.log(view.files.length, counts, sha256(file));
  });
});
