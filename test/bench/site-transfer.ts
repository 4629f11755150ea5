/**
 * Bench section: site export and import (issue 15) of 1,000 and 10,000 guides with 3 steps each.
 * Guides, steps, revision snapshots, authored links and search words are seeded straight into
 * DynamoDB (BatchWrite) with the entity files' own write builders, plus a few media images
 * through the API. Then, per size: the export job end to end (POST -> complete, parts
 * downloaded), and the import of that file into a fresh empty stack (upload, then each job
 * status timed from the job view). The peak resident memory of the stack process running each
 * job is sampled: the jobs stream, so it should not grow with the site.
 * Run alone: `npx tsx test/bench/site-transfer.ts`. BENCH_TRANSFER_GUIDES (default
 * "1000,10000") sets the sizes; BENCH_TRANSFER_STEP_SECONDS (default 10) the job step budget.
 */
import { createWriteStream, openAsBlob } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { guideSearchTokens } from '../../shared/content/guide-revisions.ts';
import { guideCreate } from '../../shared/db/entities/guide.ts';
import { stepCreateWrites, type StepRecord } from '../../shared/db/entities/step.ts';
import { guideSnapshotPut } from '../../shared/db/entities/guide-revision.ts';
import { authoredLinkPut } from '../../shared/db/entities/guide-link.ts';
import { searchTokenWrites } from '../../shared/db/search-index.ts';
import type { LabelledWrite } from '../../shared/db/transactions.ts';
import { guideRecord } from '../support/guide-record.ts';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';
import { siteAt, type Site } from '../support/site-transfer.ts';
import { writeItems } from './seed-table.ts';

const SIZES = (process.env.BENCH_TRANSFER_GUIDES ?? '1000,10000').split(',').map(Number);
const STEPS_PER_GUIDE = 3;
const MEDIA_IMAGES = 4;
/** The jobs' settings on the bench stacks: steps of this many seconds, parts cut by time only. */
const JOB_ENV = {
  LOG_LEVEL: 'ERROR',
  STEPWISE_TRANSFER_STEP_SECONDS: process.env.BENCH_TRANSFER_STEP_SECONDS ?? '10',
  STEPWISE_TRANSFER_PART_BYTES: String(1024 * 1024 * 1024),
};
const FIRST_GUIDEID = 100_000;
const CATEGORY = 'Bench printers';

// ---- memory sampling (the stack process: gateway, S3 emulator, job runner, handlers) ----

async function residentMb(pid: number): Promise<number> {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}

function watchMemory(pid: number) {
  let start = 0;
  let peak = 0;
  void residentMb(pid).then((mb) => {
    start = mb;
    peak = Math.max(peak, mb);
  });
  const timer = setInterval(async () => (peak = Math.max(peak, await residentMb(pid))), 50);
  return {
    stop: () => {
      clearInterval(timer);
      return { start, peak };
    },
  };
}

// ---- seeding, through the entity files' builders ----

function putItemsOf(writes: LabelledWrite[]): Array<Record<string, unknown>> {
  return writes.map((write) => {
    const item = write.item.Put?.Item;
    if (!item) throw new Error(`bench seeding: ${write.label} is not a put`);
    return item as Record<string, unknown>;
  });
}

/** Every item one guide with its steps makes, as insertGuide and the step writes store them. */
function guideItems(guideid: number, authorid: number): Array<Record<string, unknown>> {
  const now = Math.floor(Date.now() / 1000);
  const revisionid = guideid * 10;
  const steps: StepRecord[] = Array.from({ length: STEPS_PER_GUIDE }, (_, index) => ({
    guideid,
    stepid: guideid * 10 + index,
    revisionid: revisionid + 1 + index,
    title: `Step ${index + 1}`,
    lines: [
      { lineid: 1, bullet: 'black', level: 0, text_raw: 'Unplug the printer.', text_rendered: 'Unplug the printer.' },
      {
        lineid: 2,
        bullet: 'icon_caution',
        level: 1,
        text_raw: 'Wait until the nozzle is cool.',
        text_rendered: 'Wait until the nozzle is cool.',
      },
    ],
    media: null,
  }));
  const title = `Replace the nozzle of printer ${guideid}`;
  const guide = guideRecord({
    guideid,
    userid: authorid,
    type: 'replacement',
    category: CATEGORY,
    subject: 'Nozzle',
    title,
    summary: 'Swap a worn nozzle for a new one.',
    introduction_raw: 'You need a hex key and ten minutes.',
    introduction_rendered: '<p>You need a hex key and ten minutes.</p>',
    conclusion_raw: 'Run a test print.',
    conclusion_rendered: '<p>Run a test print.</p>',
    difficulty: 'Easy',
    time_required_min: 600,
    time_required_max: 1800,
    created_date: now,
    published_date: now,
    revisionid: revisionid + STEPS_PER_GUIDE + 1,
    steps: steps.map(({ stepid, revisionid: stepRevision }) => ({ stepid, revisionid: stepRevision })),
    search_tokens: guideSearchTokens(title),
  });

  return putItemsOf([
    guideCreate(guide),
    guideSnapshotPut(guide, { reason: 'guide.create', changed_by: authorid, date: now }),
    authoredLinkPut(guide),
    ...searchTokenWrites('GUIDE', guideid, [], guide.search_tokens),
    ...steps.flatMap(stepCreateWrites),
  ]);
}

/** Guides `from` .. `from + count - 1` with their steps, snapshots, links and search words. */
function* benchSiteItems(from: number, count: number, authorid: number): Generator<Record<string, unknown>> {
  for (let guideid = from; guideid < from + count; guideid++) yield* guideItems(guideid, authorid);
}

function seedGuides(stack: RunningStack, from: number, count: number, authorid: number): Promise<number> {
  return writeItems(stack.ddbEndpoint, benchSiteItems(from, count, authorid));
}

/** A few noisy (hard to compress) images through the media API, so the file carries objects. */
async function seedMedia(site: Site): Promise<void> {
  const token = await site.admin();
  for (let index = 0; index < MEDIA_IMAGES; index++) {
    const png = await sharp({
      create: {
        width: 800,
        height: 600,
        channels: 3,
        background: '#cc6633',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    })
      .png()
      .toBuffer();
    const upload = await site.call('POST', '/user/media/uploads', {
      token,
      query: { file: `bench-${index}.png` },
      rawBody: png,
      headers: { 'content-type': 'application/octet-stream' },
    });
    if (upload.status !== 200) throw new Error(`bench media upload: ${upload.status} ${upload.text}`);
  }
}

// ---- the jobs ----

async function callOk(site: Site, method: string, path: string, status: number, body?: unknown): Promise<any> {
  const response = await site.call(method, path, { token: await site.admin(), body });
  if (response.status !== status) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
  return response.body;
}

/** Polls a job every 100 ms; answers its last view and the seconds each status lasted. */
async function followJob(site: Site, path: string, working: string[]) {
  const seconds: Record<string, number> = {};
  let last = performance.now();
  for (;;) {
    const view = await callOk(site, 'GET', path, 200);
    const now = performance.now();
    if (!working.includes(view.status)) return { view, seconds };
    seconds[view.status] = (seconds[view.status] ?? 0) + (now - last) / 1000;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface ExportFigures {
  seconds: number;
  downloadSeconds: number;
  bytes: number;
  records: number;
  parts: number;
  memory: { start: number; peak: number };
}

async function exportTo(stack: RunningStack, site: Site, file: string): Promise<ExportFigures> {
  const memory = watchMemory(stack.child.pid!);
  const started = performance.now();
  const created = await callOk(site, 'POST', '/admin/exports', 202, {});
  const { view } = await followJob(site, `/admin/exports/${created.exportid}`, ['running']);
  const seconds = (performance.now() - started) / 1000;
  const jobMemory = memory.stop();
  if (view.status !== 'complete') throw new Error(`export ${view.status}: ${view.error}`);

  const downloadStarted = performance.now();
  const out = createWriteStream(file);
  for (const part of [...view.files].sort((a, b) => a.part - b.part)) {
    const response = await fetch(part.url);
    if (!response.ok || !response.body) throw new Error(`part ${part.part}: ${response.status}`);
    await pipeline(Readable.fromWeb(response.body as never), out, { end: false });
  }
  out.end();
  await new Promise<void>((resolve) => out.once('finish', () => resolve()));
  const records = Object.values(view.counts as Record<string, number>).reduce((sum, count) => sum + count, 0);
  return {
    seconds,
    downloadSeconds: (performance.now() - downloadStarted) / 1000,
    bytes: (await stat(file)).size,
    records,
    parts: view.files.length,
    memory: jobMemory,
  };
}

interface ImportFigures {
  uploadSeconds: number;
  phases: Record<string, number>;
  seconds: number;
  written: number;
  memory: { start: number; peak: number };
}

async function importFrom(stack: RunningStack, site: Site, file: string): Promise<ImportFigures> {
  const created = await callOk(site, 'POST', '/admin/imports', 201, {});
  const uploadStarted = performance.now();
  const form = new FormData();
  for (const [name, value] of Object.entries(created.upload.fields as Record<string, string>)) form.append(name, value);
  form.append('file', await openAsBlob(file, { type: 'application/x-ndjson' }), 'site.jsonl');
  const uploaded = await fetch(created.upload.url, { method: 'POST', body: form });
  if (uploaded.status >= 300) throw new Error(`upload: ${uploaded.status} ${await uploaded.text()}`);
  const uploadSeconds = (performance.now() - uploadStarted) / 1000;

  const memory = watchMemory(stack.child.pid!);
  const started = performance.now();
  await callOk(site, 'POST', `/admin/imports/${created.importid}/start`, 202);
  const { view, seconds: phases } = await followJob(site, `/admin/imports/${created.importid}`, [
    'validating',
    'writing',
    'finishing',
  ]);
  const seconds = (performance.now() - started) / 1000;
  const jobMemory = memory.stop();
  if (view.status !== 'complete') throw new Error(`import ${view.status}: ${view.error}`);
  return { uploadSeconds, phases, seconds, written: view.report.written, memory: jobMemory };
}

// ---- the section ----

interface SizeFigures {
  guides: number;
  items: number;
  /** Items written by this size's seeding (the larger size adds to the smaller) and its time. */
  seedItems: number;
  seedSeconds: number;
  exported: ExportFigures;
  imported: ImportFigures;
}

async function adminUserid(site: Site): Promise<number> {
  return (await callOk(site, 'GET', '/user', 200)).userid as number;
}

export async function siteTransferBench(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'stepwise-transfer-bench-'));
  const source = await startStackProcess(JOB_ENV);
  const figures: SizeFigures[] = [];
  try {
    const sourceSite = siteAt(source.url);
    const authorid = await adminUserid(sourceSite);
    await callOk(sourceSite, 'POST', '/wikis', 201, { namespace: 'CATEGORY', title: CATEGORY, contents: 'Bench.' });
    await seedMedia(sourceSite);
    let seeded = 0;
    let items = 0;
    for (const guides of [...SIZES].sort((a, b) => a - b)) {
      // One source grows from the smaller size to the larger; each import gets a fresh empty stack.
      const seedStarted = performance.now();
      const seedItems = await seedGuides(source, FIRST_GUIDEID + seeded, guides - seeded, authorid);
      items += seedItems;
      const seedSeconds = (performance.now() - seedStarted) / 1000;
      seeded = guides;
      console.log(`site transfer bench: ${guides} guides seeded, exporting`);
      const file = join(directory, `site-${guides}.jsonl`);
      const exported = await exportTo(source, sourceSite, file);
      console.log(`site transfer bench: ${guides} guides exported in ${exported.seconds.toFixed(0)} s, importing`);
      const target = await startStackProcess(JOB_ENV);
      try {
        const imported = await importFrom(target, siteAt(target.url), file);
        figures.push({ guides, items, seedItems, seedSeconds, exported, imported });
      } finally {
        await target.stop();
      }
      await rm(file, { force: true });
    }
  } finally {
    await source.stop();
    await rm(directory, { recursive: true, force: true });
  }
  printFigures(figures);
}

function printFigures(figures: SizeFigures[]): void {
  const column = (size: SizeFigures) => `${size.guides.toLocaleString('en')} guides`;
  const row = (measure: string, value: (size: SizeFigures) => string | number) =>
    Object.fromEntries([['measure', measure], ...figures.map((size) => [column(size), value(size)])]);
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  const s = (seconds: number | undefined) => (seconds ?? 0).toFixed(1);
  console.log(
    `\nSite export and import: guides with ${STEPS_PER_GUIDE} steps each (snapshots, authored links, search words) ` +
      `and ${MEDIA_IMAGES} media images; job steps of ${JOB_ENV.STEPWISE_TRANSFER_STEP_SECONDS} s`,
  );
  console.table([
    row('table items seeded (BatchWrite)', (size) => size.items),
    row("seeding: items / s (8 writers, the store's write pace)", (size) =>
      Math.round(size.seedItems / size.seedSeconds),
    ),
    row('export: POST -> complete, s', (size) => s(size.exported.seconds)),
    row('export: records / s', (size) => Math.round(size.exported.records / size.exported.seconds)),
    row('export: parts downloaded, s', (size) => s(size.exported.downloadSeconds)),
    row('site file MB', (size) => mb(size.exported.bytes)),
    row('item records', (size) => size.exported.records),
    row('parts', (size) => size.exported.parts),
    row(
      'export: stack RSS start -> peak MB',
      (size) => `${size.exported.memory.start.toFixed(0)} -> ${size.exported.memory.peak.toFixed(0)}`,
    ),
    row('import: upload (presigned POST), s', (size) => s(size.imported.uploadSeconds)),
    row('import: validating, s', (size) => s(size.imported.phases.validating)),
    row('import: writing, s', (size) => s(size.imported.phases.writing)),
    row('import: finishing, s', (size) => s(size.imported.phases.finishing)),
    row('import: start -> complete, s', (size) => s(size.imported.seconds)),
    row('import: records / s', (size) => Math.round(size.exported.records / size.imported.seconds)),
    row('import: items written / s while writing', (size) =>
      Math.round(size.imported.written / (size.imported.phases.writing ?? Number.NaN)),
    ),
    row('import: items and objects written', (size) => size.imported.written),
    row(
      'import: stack RSS start -> peak MB',
      (size) => `${size.imported.memory.start.toFixed(0)} -> ${size.imported.memory.peak.toFixed(0)}`,
    ),
  ]);
  console.log(
    'RSS: the whole local stack process (gateway, S3 emulator, job runner, handlers), DynamoDB Local is its own JVM.' +
      ' The jobs stream (one Scan page, one line, one 5 MiB upload part), so the peak should not grow with the site.',
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = Date.now();
  await siteTransferBench();
  console.log(`\nsite transfer bench finished in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  process.exit(0);
}
