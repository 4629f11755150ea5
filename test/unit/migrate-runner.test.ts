/**
 * The migration runner end to end against a local fake source: file shape, crawler order,
 * counters, the report, and a crawl that fails midway then resumes into the same records.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ResourceCrawler } from '../../infra/ops/migrate/crawl.ts';
import { MigrationRun, orderCrawlers } from '../../infra/ops/migrate/runner.ts';
import { HttpSourceClient } from '../../infra/ops/migrate/source-client.ts';
import { OBJECT_CHUNK_BYTES, siteRecordSchema, type SiteRecord } from '../../shared/site-archive/records.ts';

const THINGS = 30;
let server: http.Server;
let baseUrl: string;
const detailRequests: number[] = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const url = new URL(request.url!, 'http://source');
    response.setHeader('content-type', 'application/json');
    if (url.pathname === '/api/2.0/things') {
      const offset = Number(url.searchParams.get('offset'));
      const limit = Number(url.searchParams.get('limit'));
      const ids = Array.from({ length: THINGS }, (_, index) => ({ id: index + 1 })).slice(offset, offset + limit);
      response.end(JSON.stringify(ids));
      return;
    }
    const detail = /^\/api\/2\.0\/things\/(\d+)$/.exec(url.pathname);
    if (detail) {
      detailRequests.push(Number(detail[1]));
      response.end(JSON.stringify({ id: Number(detail[1]), name: `Thing ${detail[1]}` }));
      return;
    }
    response.statusCode = 404;
    response.end('{"message":"Not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/2.0`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Things (an item each, a two-chunk object for every tenth) then their parts; `failAt` throws there. */
function crawlers(failAt?: number): ResourceCrawler[] {
  const things: ResourceCrawler = {
    name: 'things',
    async crawl({ api, sink, known, isDone, completed, report }) {
      for await (const page of api.pages<{ id: number }>('things', { pageSize: 8 })) {
        await Promise.all(
          page.map(async ({ id }) => {
            known.add('thing', id);
            const unit = `thing:${id}`;
            if (isDone(unit)) return;
            if (id === failAt) throw new Error(`source fell over at thing ${id}`);
            const thing = await api.get<{ id: number; name: string }>(`things/${id}`);
            await sink.items([{ pk: `THING#${id}`, sk: 'META', entity: 'Thing', ...thing, tags: new Set(['a']) }]);
            if (id % 10 === 0) {
              await sink.object('media', `things/${id}`, 'text/plain', Buffer.alloc(OBJECT_CHUNK_BYTES + 5, id));
            }
            sink.idSeen('thing', id);
            report.unexposed('thing secrets', 'API 2.0 has no read for them');
            await completed(unit);
          }),
        );
      }
    },
  };
  const parts: ResourceCrawler = {
    name: 'parts',
    after: ['things'],
    async crawl({ sink, known, isDone, completed }) {
      for (const id of known.all('thing')) {
        if (isDone(`parts:${id}`)) continue;
        await sink.items([1, 2].map((part) => ({ pk: `THING#${id}`, sk: `PART#${part}`, entity: 'Part', part })));
        sink.idSeen('part', id * 10 + 2);
        await completed(`parts:${id}`);
      }
    },
  };
  return [parts, things];
}

function client() {
  return new HttpSourceClient({ baseUrl, token: 't', ratePerSecond: 1000, concurrency: 3 });
}

async function records(file: string): Promise<SiteRecord[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => siteRecordSchema.parse(JSON.parse(line)));
}

/** Records as comparable lines: the header's creation time aside, order aside. */
function multiset(list: SiteRecord[]): string[] {
  return list.map((record) => JSON.stringify(record.type === 'header' ? { ...record, created_at: '' } : record)).sort();
}

async function workDir() {
  return mkdtemp(path.join(tmpdir(), 'migrate-runner-'));
}

describe('migration runner', () => {
  it('writes header, items, objects, counters and end, in after order, with a report', async () => {
    const out = path.join(await workDir(), 'site.jsonl');
    const order: string[] = [];
    const report = await new MigrationRun({
      api: client(),
      baseUrl,
      crawlers: crawlers(),
      out,
      onCrawler: (name) => order.push(name),
    }).run();
    expect(order).toEqual(['things', 'parts']);
    const list = await records(out);
    expect(list[0]).toMatchObject({ type: 'header', source: { kind: 'migration', base_url: baseUrl } });
    const end = list.at(-1)!;
    expect(end).toEqual({
      type: 'end',
      records: list.length - 1,
      counts: { Thing: THINGS, Part: 2 * THINGS, Counter: 2 },
      objects: 3,
    });
    const item = list.find((record) => record.type === 'item' && record.entity === 'Thing')!;
    expect(item).toMatchObject({ item: { pk: { S: expect.stringMatching(/^THING#/) }, tags: { SS: ['a'] } } });
    const counters = list.filter((record) => record.type === 'item' && record.entity === 'Counter');
    expect(counters.map((record) => (record as { item: unknown }).item)).toEqual(
      expect.arrayContaining([
        { pk: { S: 'COUNTER#thing' }, sk: { S: 'COUNTER' }, value: { N: '30' } },
        { pk: { S: 'COUNTER#part' }, sk: { S: 'COUNTER' }, value: { N: '302' } },
      ]),
    );
    // Each object is followed by its chunks, in order.
    const objectAt = list.findIndex((record) => record.type === 'object');
    expect(list[objectAt]).toMatchObject({ size: OBJECT_CHUNK_BYTES + 5, chunks: 2 });
    expect(list.slice(objectAt + 1, objectAt + 3).map((record) => (record as { index: number }).index)).toEqual([0, 1]);
    expect(report.unexposed).toEqual([
      { what: 'thing secrets', detail: 'API 2.0 has no read for them', count: THINGS },
    ]);
    expect(report.counts).toEqual(end.type === 'end' ? end.counts : {});
    const saved = JSON.parse(await readFile(`${out}.report.json`, 'utf8'));
    expect(saved.counts.Thing).toBe(THINGS);
    await expect(stat(`${out}.checkpoint`)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('resumes a crawl that failed midway into the same records, without duplicates', async () => {
    const dir = await workDir();
    const whole = path.join(dir, 'whole.jsonl');
    await new MigrationRun({ api: client(), baseUrl, crawlers: crawlers(), out: whole }).run();

    const cut = path.join(dir, 'cut.jsonl');
    const first = new MigrationRun({ api: client(), baseUrl, crawlers: crawlers(17), out: cut, checkpointEveryMs: 0 });
    await expect(first.run()).rejects.toThrow('source fell over at thing 17');
    const checkpoint = JSON.parse(await readFile(`${cut}.checkpoint`, 'utf8'));
    expect(checkpoint.done.length).toBeGreaterThan(0);
    expect(checkpoint.done).not.toContain('thing:17');

    detailRequests.length = 0;
    const resumed = await new MigrationRun({
      api: client(),
      baseUrl,
      crawlers: crawlers(),
      out: cut,
      resume: true,
    }).run();
    expect(resumed.resumed).toBe(true);
    // Done units were not fetched again.
    for (const unit of checkpoint.done as string[]) {
      if (unit.startsWith('thing:')) expect(detailRequests).not.toContain(Number(unit.slice(6)));
    }
    const again = await records(cut);
    expect(multiset(again)).toEqual(multiset(await records(whole)));
    const keys = again.filter((record) => record.type === 'item').map((record) => JSON.stringify(record.item));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('refuses a resume without checkpoint or of another source, and a fresh run over a checkpoint', async () => {
    const out = path.join(await workDir(), 'site.jsonl');
    await expect(
      new MigrationRun({ api: client(), baseUrl, crawlers: crawlers(), out, resume: true }).run(),
    ).rejects.toThrow('Nothing to resume');
    await expect(
      new MigrationRun({ api: client(), baseUrl, crawlers: crawlers(3), out, checkpointEveryMs: 0 }).run(),
    ).rejects.toThrow('source fell over at thing 3');
    await expect(
      new MigrationRun({
        api: client(),
        baseUrl: 'http://other/api/2.0',
        crawlers: crawlers(),
        out,
        resume: true,
      }).run(),
    ).rejects.toThrow('belongs to a crawl of');
    await expect(new MigrationRun({ api: client(), baseUrl, crawlers: crawlers(), out }).run()).rejects.toThrow(
      'holds an interrupted crawl: add --resume',
    );
  });
});

describe('crawler order', () => {
  const named = (name: string, after?: string[]): ResourceCrawler => ({ name, after, crawl: async () => undefined });

  it('runs each crawler after those it names, and --only brings them along', () => {
    const list = [named('marks', ['guides', 'users']), named('guides', ['users']), named('users'), named('badges')];
    expect(orderCrawlers(list).map((crawler) => crawler.name)).toEqual(['users', 'guides', 'marks', 'badges']);
    expect(orderCrawlers(list, ['marks']).map((crawler) => crawler.name)).toEqual(['users', 'guides', 'marks']);
  });

  it('refuses unknown names, missing dependencies, duplicates and cycles', () => {
    expect(() => orderCrawlers([named('users')], ['usrs'])).toThrow('No crawler usrs');
    expect(() => orderCrawlers([named('guides', ['users'])])).toThrow(
      'guides runs after users, which is not registered',
    );
    expect(() => orderCrawlers([named('users'), named('users')])).toThrow('Two resource crawlers');
    expect(() => orderCrawlers([named('a', ['b']), named('b', ['a'])])).toThrow('cycle');
  });
});
