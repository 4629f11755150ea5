/**
 * Import, second phase: writes the file through the explicit-id path. Each item is put verbatim
 * with the low-level client (a batch write in `empty` mode; in `merge` mode a conditional put, so
 * an item that appeared since validation is refused, not overwritten); items the target already
 * holds identically are skipped, so a second run writes nothing. Objects are streamed to their
 * bucket, after the items read before them are written (decision 150). `empty` mode first clears
 * what the first Admin left when it differs from the file.
 */
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { BatchWriteItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { Upload } from '@aws-sdk/lib-storage';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { untilProcessed } from '../db/batch.ts';
import { rawDb, tableName } from '../db/client.ts';
import { isConditionFailed } from '../db/retry.ts';
import { s3Client } from '../storage/s3-client.ts';
import { userKey } from '../db/entities/user.ts';
import { FIRST_ADMIN_FOOTPRINT } from './catalogue.ts';
import { staysHome } from './export-step.ts';
import { nextScanPage, scanFinished } from './table-scan.ts';
import {
  decidedByImport,
  ImportRefused,
  isOperatorUser,
  parseRecord,
  targetObjectMatches,
  type ImportStep,
  type WritingPass,
} from './import-context.ts';
import { itemLabel, sameItem, targetItems, targetOf, type RawItem } from './item-compare.ts';
import { readLines } from './line-reader.ts';
import { bucketOf } from './keys.ts';
import { entityOf } from './records.ts';
import { randomBytes } from 'node:crypto';
import { entityOfKey } from '../db/entity-schemas.ts';
import { credentialOwners } from './item-checks.ts';
import { claimItem, claimsOf, isDerivedClaim } from './unique-claims.ts';
import { isSealedSecret, openSecret } from './secret-box.ts';

const WRITE_BATCH = 25;
/** Items per Scan page while clearing the first Admin's items. */
const CLEAR_PAGE_ITEMS = 500;
/** Items read before they are compared with the target (one BatchGet of 100 keys) and written. */
const PUT_CHUNK = 100;
/**
 * Writes in flight at once. One call at a time, the import wrote ~470 items/s where the export
 * read ~2,000 (npm run bench, "Site export and import"); the writes of a chunk are independent.
 */
const WRITES_IN_FLIGHT = 4;

type WriteRequests = NonNullable<BatchWriteItemCommand['input']['RequestItems']>[string];

/** Runs `work` on every element, at most `limit` at a time. */
async function inParallel<T>(elements: T[], limit: number, work: (element: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < elements.length) await work(elements[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, elements.length) }, worker));
}

async function batchWrite(requests: WriteRequests): Promise<void> {
  const batches: WriteRequests[] = [];
  for (let start = 0; start < requests.length; start += WRITE_BATCH)
    batches.push(requests.slice(start, start + WRITE_BATCH));
  await inParallel(batches, WRITES_IN_FLIGHT, (first) =>
    untilProcessed(first, async (batch) => {
      const result = await rawDb().send(new BatchWriteItemCommand({ RequestItems: { [tableName()]: batch } }));
      return result.UnprocessedItems?.[tableName()];
    }),
  );
}

/**
 * Deletes the first Admin's items (account, uniqueness, search and list entries, its audit chain),
 * leaving counters and live tokens: the file's accounts take their place.
 */
export async function clearFirstAdminStep(step: ImportStep<WritingPass>): Promise<boolean> {
  const { clear } = step.pass;
  // The operator's own account item stays until the file's accounts are written, so the job's
  // caller is never locked out meanwhile (see the finishing step).
  const operatorKey = userKey(step.job.operator.userid);
  while (!scanFinished(clear)) {
    const deletes = (await nextScanPage(clear, CLEAR_PAGE_ITEMS))
      .filter((item) => FIRST_ADMIN_FOOTPRINT.has(entityOf(unmarshall(item))))
      .filter((item) => !(item.pk?.S === operatorKey.pk && item.sk?.S === operatorKey.sk))
      .map((item) => ({ DeleteRequest: { Key: { pk: item.pk!, sk: item.sk! } } }));
    await batchWrite(deletes);
    if (step.full()) return scanFinished(clear);
  }
  return true;
}

interface OpenUpload {
  stream: PassThrough;
  done: Promise<unknown>;
  chunks: number;
  next: number;
}

/** Writes the file's items and objects from the job's offset on; answers the offset reached and whether done. */
export async function writeFileStep(step: ImportStep<WritingPass>): Promise<{ offset: number; finished: boolean }> {
  const { job, pass } = step;
  const pending: PendingWrite[] = [];
  let upload: OpenUpload | undefined;
  let skipping: { chunks: number; next: number } | undefined;
  let offset = job.offset;
  let lineNumber = pass.records;
  const size = job.size ?? 0;

  for await (const line of readLines(bucketOf('modules'), job.key, job.offset, size)) {
    lineNumber += 1;
    const record = parseRecord(line.text, lineNumber);
    if (record.type === 'item') {
      const plain = unmarshall(record.item as RawItem);
      const item = itemToWrite(step, record.item as RawItem, plain);
      if (item) {
        pending.push({ item, ignoring: decidedByImport(plain, job.operator.email) });
        // The record's uniqueness claims, as it holds them (decision 254): the file's own never are written.
        for (const claim of claimsOf(entityOfKey(String(plain.pk), String(plain.sk))?.entity ?? '', plain))
          pending.push({ item: claimItem(claim), ignoring: [] });
        if (pending.length >= PUT_CHUNK) await putItems(step, pending.splice(0));
      }
    } else if (record.type === 'object') {
      // Items first: a stored object wakes the media processor, which must find its media item
      // already written (decision 121), or it processes the original again.
      await putItems(step, pending.splice(0));
      const matches = await targetObjectMatches(record.bucket, record.key, record.size, record.sha256);
      if (matches === true) {
        pass.present += 1;
        skipping = { chunks: record.chunks, next: 0 };
      } else {
        if (matches === false && job.mode === 'merge') {
          throw new ImportRefused(`Object ${record.bucket}/${record.key} appeared in the site during the import`);
        }
        upload = startUpload(record.bucket, record.key, record.content_type);
        upload.chunks = record.chunks;
        pass.written += 1;
      }
    } else if (record.type === 'object_chunk') {
      if (skipping) skipping.next += 1;
      else if (upload) {
        if (!upload.stream.write(Buffer.from(record.data, 'base64'))) {
          await Promise.race([once(upload.stream, 'drain'), upload.done]);
        }
        upload.next += 1;
      }
    }
    if (upload && upload.next >= upload.chunks) {
      upload.stream.end();
      await upload.done;
      upload = undefined;
    }
    if (skipping && skipping.next >= skipping.chunks) skipping = undefined;
    offset = line.next;
    if (!upload && !skipping && step.full()) break;
  }
  await putItems(step, pending);
  pass.records = lineNumber;
  return { offset, finished: offset >= size };
}

/**
 * The item as this site writes it, or undefined when it is not written: jobs, counters and
 * transient items stay home, uniqueness claims are written as the records hold them (above,
 * decision 254); a credential of an account the site already had is never written (decision 164).
 * The operator's account keeps their password hash and roles; a webhook's secret is opened with
 * the passphrase, or a fresh one is made for a webhook that came without (it then arrives
 * inactive; decision 167).
 */
function itemToWrite(step: ImportStep<WritingPass>, raw: RawItem, plain: Record<string, unknown>): RawItem | undefined {
  const { job, pass, scratch } = step;
  const shape = entityOfKey(String(plain.pk), String(plain.sk));
  if (!shape || staysHome(plain) || shape.entity === 'Counter') return undefined;
  if (isDerivedClaim(shape.entity, plain)) return undefined;
  if (shape.credentialOwner) {
    const existing = new Set(scratch.existing_owners);
    if (credentialOwners(shape, plain).some((id) => existing.has(id))) return undefined;
  }
  const item = { ...raw };
  if (isOperatorUser(plain, job.operator.email)) {
    item.password_hash = { S: pass.operator_hash };
    item.privileges = { L: pass.operator_privileges.map((role) => ({ S: role })) };
  }
  if (shape.entity === 'Webhook') {
    const secret = String(plain.secret ?? '');
    if (isSealedSecret(secret)) item.secret = { S: openSecret(secret, job.secrets_passphrase ?? '') };
    else if (secret === '') {
      item.secret = { S: randomBytes(32).toString('hex') };
      item.active = { BOOL: false };
    }
  }
  return item;
}

function startUpload(role: 'media' | 'modules', key: string, contentType: string | null): OpenUpload {
  const stream = new PassThrough();
  const done = new Upload({
    client: s3Client(),
    params: { Bucket: bucketOf(role), Key: key, Body: stream, ContentType: contentType ?? undefined },
    partSize: 5 * 1024 * 1024,
    queueSize: 1,
    leavePartsOnError: false,
  }).done();
  done.catch(() => stream.destroy());
  return { stream, done, chunks: 0, next: 0 };
}

interface PendingWrite {
  item: RawItem;
  /** Attributes the import decides (decidedByImport): a target item differing only there is present. */
  ignoring: string[];
}

/** Puts the items the target does not hold identically yet. */
async function putItems(step: ImportStep<WritingPass>, writes: PendingWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const { job, pass } = step;
  const found = await targetItems(writes.map((write) => write.item));
  const missing = writes
    .filter(({ item, ignoring }) => {
      const existing = targetOf(found, item);
      if (existing && sameItem(item, existing, ignoring)) {
        pass.present += 1;
        return false;
      }
      return true;
    })
    .map((write) => write.item);
  if (job.mode === 'empty') {
    await batchWrite(missing.map((item) => ({ PutRequest: { Item: item } })));
  } else {
    await inParallel(missing, WRITES_IN_FLIGHT, async (item) => {
      try {
        await rawDb().send(
          new PutItemCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
        );
      } catch (error) {
        if (isConditionFailed(error))
          throw new ImportRefused(`${itemLabel(item)} appeared in the site during the import`);
        throw error;
      }
    });
  }
  pass.written += missing.length;
}
