/**
 * One step of a site export (docs/export-format.md): reads on from the job's cursor, writes the
 * records to the next part object, and stops after the time budget or the part size, saving the
 * cursor with the part. The table is read with a paginated parallel Scan, one segment after the
 * other (a background job, never a request path); then the media and modules buckets are listed
 * and each object streamed. Memory holds one Scan page or one object chunk.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { config } from '../config.ts';
import { nowSeconds } from '../clock.ts';
import {
  getExport,
  JOB_COUNTER_TYPES,
  saveExportProgress,
  saveExportStep,
  SITE_EXPORT_ENTITY,
  SITE_IMPORT_ENTITY,
  type ExportCursor,
  type SiteExportRecord,
} from '../db/entities/site-transfer-job.ts';
import { counterTypeOf } from './catalogue.ts';
import { bucketOf, exportPartKey } from './keys.ts';
import { listObjectKeys, objectRecords } from './objects.ts';
import { PartWriter } from './part-writer.ts';
import { sealSecret } from './secret-box.ts';
import { deleteByPrefixes } from '../storage/objects.ts';
import { entityOf, SITE_FORMAT, SITE_FORMAT_VERSION, TRANSIENT_ENTITIES, type SiteRecord } from './records.ts';
import { nextScanPage, SCAN_SEGMENTS, scanFinished } from './table-scan.ts';

const SCAN_PAGE_ITEMS = 200;
const LIST_PAGE_KEYS = 100;
const TABLE_SHARE = 80;
/** How often a running step saves its percent when it moved, so a client polling the job sees it move. */
const PROGRESS_EVERY_MS = 5000;

/** Whether an item stays out of every site file (docs/export-format.md, "What is left out"). */
export function staysHome(item: Record<string, unknown>): boolean {
  const entity = entityOf(item);
  if (TRANSIENT_ENTITIES.has(entity) || entity === SITE_EXPORT_ENTITY || entity === SITE_IMPORT_ENTITY) return true;
  const counter = counterTypeOf(item);
  return counter !== undefined && (JOB_COUNTER_TYPES as readonly string[]).includes(counter);
}

function percentOf(cursor: ExportCursor): number {
  if (cursor.phase === 'done') return 100;
  if (cursor.phase === 'table') return Math.floor((cursor.segment / SCAN_SEGMENTS) * TABLE_SHARE);
  return cursor.bucket === 'media' ? TABLE_SHARE : TABLE_SHARE + 10;
}

/** What one step carries: the cursor and running totals, written to one part. */
interface ExportRun {
  cursor: ExportCursor;
  counts: Record<string, number>;
  records: number;
  objects: number;
  includeObjects: boolean;
  /** Seals webhook secrets; without it they are left out (decision 167). */
  passphrase: string | null;
  writer: PartWriter;
  full(): boolean;
}

async function write(run: ExportRun, record: SiteRecord): Promise<void> {
  await run.writer.write(record);
  run.records += 1;
}

/**
 * A webhook's secret never travels in clear text: sealed with the passphrase, or left out (an
 * empty secret, the webhook inactive; the import makes a fresh secret and lists the webhook).
 */
function withSecretSealed(run: ExportRun, item: Record<string, AttributeValue>): Record<string, AttributeValue> {
  const secret = item.secret?.S ?? '';
  if (run.passphrase && secret) return { ...item, secret: { S: sealSecret(secret, run.passphrase) } };
  return { ...item, secret: { S: '' }, active: { BOOL: false } };
}

/** One Scan page of the current segment; past the last segment, on to the objects (or done). */
async function exportTablePage(run: ExportRun): Promise<void> {
  const { cursor } = run;
  for (const item of await nextScanPage(cursor, SCAN_PAGE_ITEMS)) {
    const plain = unmarshall(item);
    if (staysHome(plain)) continue;
    const entity = entityOf(plain);
    await write(run, { type: 'item', entity, item: entity === 'Webhook' ? withSecretSealed(run, item) : item });
    run.counts[entity] = (run.counts[entity] ?? 0) + 1;
  }
  if (scanFinished(cursor)) cursor.phase = run.includeObjects ? 'objects' : 'done';
}

/** Objects of one listing page, whole, until the step is full; then the next bucket (or done). */
async function exportObjectsPage(run: ExportRun): Promise<void> {
  const { cursor } = run;
  const page = await listObjectKeys(cursor.bucket, cursor.after_key, LIST_PAGE_KEYS);
  for (const key of page.keys) {
    for await (const record of objectRecords(cursor.bucket, key)) await write(run, record);
    run.objects += 1;
    cursor.after_key = key;
    if (run.full()) return;
  }
  // Past the whole page, the site-transfer keys it skipped included.
  cursor.after_key = page.lastKey;
  if (page.more) return;
  if (cursor.bucket === 'media') Object.assign(cursor, { bucket: 'modules', after_key: null });
  else cursor.phase = 'done';
}

export async function runExportStep(
  exportid: number,
  options: { progressEveryMs?: number } = {},
): Promise<{ done: boolean }> {
  const job = await getExport(exportid);
  if (job?.status !== 'running') return { done: true };
  const settings = config();
  const deadline = Date.now() + settings.STEPWISE_TRANSFER_STEP_SECONDS * 1000;
  const partNumber = job.parts.length + 1;
  const partKey = exportPartKey(exportid, partNumber);
  const writer = new PartWriter(bucketOf('modules'), partKey);
  const run: ExportRun = {
    cursor: structuredClone(job.cursor),
    counts: { ...job.counts },
    records: job.records,
    objects: job.objects,
    includeObjects: job.include_objects,
    passphrase: job.secrets_passphrase ?? null,
    writer,
    full: () => Date.now() >= deadline || writer.bytes >= settings.STEPWISE_TRANSFER_PART_BYTES,
  };
  try {
    if (partNumber === 1) {
      await write(run, {
        type: 'header',
        format: SITE_FORMAT,
        format_version: SITE_FORMAT_VERSION,
        created_at: new Date().toISOString(),
        source: { kind: 'export', base_url: settings.STEPWISE_SITE_URL },
      });
    }
    // The percent moves with the cursor; the step's own save at its end is all a client would
    // otherwise see, and on AWS one step may be the whole export.
    let shown = { percent: job.percent, at: Date.now() };
    const showProgress = async () => {
      const percent = percentOf(run.cursor);
      const everyMs = options.progressEveryMs ?? PROGRESS_EVERY_MS;
      if (run.cursor.phase === 'done' || percent === shown.percent || Date.now() - shown.at < everyMs) return;
      shown = { percent, at: Date.now() };
      await saveExportProgress(exportid, job.parts.length, percent);
    };
    // At least one page per step, so every step moves the export on.
    do {
      if (run.cursor.phase === 'table') await exportTablePage(run);
      else if (run.cursor.phase === 'objects') await exportObjectsPage(run);
      await showProgress();
    } while (run.cursor.phase !== 'done' && !run.full());
    if (run.cursor.phase === 'done') {
      await writer.write({ type: 'end', records: run.records, counts: run.counts, objects: run.objects });
      run.records += 1;
    }
  } catch (error) {
    writer.abort(error);
    throw error;
  }
  const size = await writer.close();
  const done = run.cursor.phase === 'done';
  const changes: Partial<SiteExportRecord> = {
    cursor: run.cursor,
    parts: [...job.parts, { part: partNumber, key: partKey, size }],
    records: run.records,
    counts: run.counts,
    objects: run.objects,
    percent: percentOf(run.cursor),
    ...(done ? { status: 'complete' as const, completed_at: nowSeconds(), secrets_passphrase: null } : {}),
  };
  // Saved on condition of the part count: a retried step that lost to an earlier attempt moves nothing.
  const saved = await saveExportStep(exportid, job.parts.length, changes);
  if (!saved && (await getExport(exportid))?.status !== 'running') {
    // Cancelled (or failed) while this step wrote: its part goes too (decision 166).
    await deleteByPrefixes(bucketOf('modules'), [partKey]);
  }
  return { done: done || !saved };
}
