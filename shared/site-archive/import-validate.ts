/**
 * Import, first phase: the whole file is read and checked before anything is written
 * (format, every line, chunk order and sha256 of objects, the end record and its counts,
 * unknown entity names, broken references, collisions with the target), then, in `empty` mode,
 * the target is scanned to make sure it holds nothing but its first Admin and the file's items.
 */
import { createHash } from 'node:crypto';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  counterTypeOf,
  definedTarget,
  FIRST_ADMIN_FOOTPRINT,
  ID_COUNTERS,
  LEFT_IN_PLACE,
  REFERENCE_TARGET_KEY,
  referencesOf,
  type ReferenceTarget,
} from './catalogue.ts';
import { staysHome } from './export-step.ts';
import { nextScanPage, scanFinished } from './table-scan.ts';
import {
  decidedByImport,
  ImportRefused,
  isOperatorUser,
  listIn,
  parseRecord,
  targetObjectMatches,
  type ImportStep,
  type ValidationPass,
} from './import-context.ts';
import { itemLabel, sameItem, targetItems, targetOf, type RawItem } from './item-compare.ts';
import { LineTooLong, readLines } from './line-reader.ts';
import { bucketOf } from './keys.ts';
import { entityOf, SITE_FORMAT, SITE_FORMAT_VERSION, TRANSIENT_ENTITIES } from './records.ts';
import type { EntityShape } from '../db/entity-schemas.ts';
import { userKey } from '../db/entities/user.ts';
import { checkItem, credentialOwners, privilegesOf } from './item-checks.ts';
import { invalidList, listOf } from './import-report.ts';
import { isAllowedObjectKey } from './object-keys.ts';
import { idInKey } from './identity.ts';
import { claimItem, claimSignature, claimsOf, isDerivedClaim } from './unique-claims.ts';
import { isSealedSecret, openSecret, WrongPassphrase } from './secret-box.ts';

const COMPARE_BATCH = 100;
const SCAN_PAGE_ITEMS = 500;

interface PendingItem {
  raw: RawItem;
  plain: Record<string, unknown>;
  entity: string;
}

interface OpenObject {
  bucket: 'media' | 'modules';
  key: string;
  size: number;
  sha256: string;
  chunks: number;
  next: number;
  bytes: number;
  hash: ReturnType<typeof createHash>;
  /** A key of a shape this site writes (isAllowedObjectKey). */
  allowed: boolean;
}

/** The file's lines from `offset`; a line longer than any record refuses the file, naming it. */
async function* fileLines(key: string, offset: number, size: number, lineNumber: () => number) {
  try {
    yield* readLines(bucketOf('modules'), key, offset, size);
  } catch (error) {
    if (!(error instanceof LineTooLong)) throw error;
    throw new ImportRefused(`Line ${lineNumber()} is longer than ${error.limit} bytes: no record of a site file is`);
  }
}

/** Reads the file on from the job's offset; answers the offset reached and whether the file is done. */
export async function validateFileStep(
  step: ImportStep<ValidationPass>,
): Promise<{ offset: number; finished: boolean }> {
  const { job, pass, report } = step;
  const pending: PendingItem[] = [];
  let open: OpenObject | undefined;
  let offset = job.offset;
  const size = job.size ?? 0;

  for await (const line of fileLines(job.key, job.offset, size, () => pass.records + 1)) {
    const lineNumber = pass.records + 1;
    if (pass.end) throw new ImportRefused(`Line ${lineNumber} follows the end record`);
    if (lineNumber === 1) checkHeaderLine(line.text);
    const record = parseRecord(line.text, lineNumber);
    if (lineNumber > 1 && record.type === 'header') throw new ImportRefused(`Line ${lineNumber} is a second header`);
    if (open && record.type !== 'object_chunk') {
      throw new ImportRefused(`Object ${open.bucket}/${open.key} stops at chunk ${open.next} of ${open.chunks}`);
    }
    switch (record.type) {
      case 'item': {
        const item = record.item as RawItem;
        pass.claimed[record.entity] = (pass.claimed[record.entity] ?? 0) + 1;
        const checked = checkItem(record.entity, item);
        if (!checked.ok) {
          if (checked.unknownName && !report.unknown_types.includes(checked.unknownName))
            report.unknown_types.push(checked.unknownName);
          else if (!checked.unknownName) listIn(invalidList(report), checked.reason);
          // Named by what its key says, when it says anything.
          const named = checked.keyEntity ?? record.entity;
          report.counts[named] = (report.counts[named] ?? 0) + 1;
          break;
        }
        const { shape, plain } = checked;
        // Counted by what the key says it is, never by the record's own claim.
        report.counts[shape.entity] = (report.counts[shape.entity] ?? 0) + 1;
        noteItem(step, shape.entity, item, plain);
        noteTrust(step, shape, item, plain);
        // A claim the file carries is judged against the records' own claims, never compared or written as given.
        if (isDerivedClaim(shape.entity, plain)) noteFileClaim(step, item, plain);
        else if (!staysHome(plain) && shape.entity !== 'Counter') {
          pending.push({ raw: item, plain, entity: shape.entity });
          for (const claim of noteDerivedClaims(step, shape.entity, item, plain)) pending.push(claim);
        }
        if (pending.length >= COMPARE_BATCH) await compareWithTarget(step, pending.splice(0));
        break;
      }
      case 'object':
        report.objects += 1;
        open = { ...record, next: 0, bytes: 0, hash: createHash('sha256'), allowed: true };
        if (!isAllowedObjectKey(record.bucket, record.key)) {
          // Never looked up either: the key must not reach a bucket, not even as a HEAD.
          listIn(
            invalidList(report),
            `object ${record.bucket}/${JSON.stringify(record.key)}: a key this site never writes`,
          );
          open.allowed = false;
        }
        break;
      case 'object_chunk': {
        if (!open || open.key !== record.key || open.bucket !== record.bucket || open.next !== record.index) {
          throw new ImportRefused(
            `Line ${lineNumber}: chunk ${record.index} of ${record.bucket}/${record.key} is out of order`,
          );
        }
        const bytes = Buffer.from(record.data, 'base64');
        open.hash.update(bytes);
        open.bytes += bytes.length;
        open.next += 1;
        break;
      }
      case 'end':
        checkEnd(step, record);
        pass.end = true;
        break;
      case 'header':
        break;
    }
    if (open && open.next === open.chunks) {
      await closeObject(step, open);
      open = undefined;
    }
    pass.records += 1;
    offset = line.next;
    if (!open && step.full()) break;
  }
  await compareWithTarget(step, pending);
  if (open) throw new ImportRefused(`The file is cut short inside object ${open.bucket}/${open.key}`);
  const finished = offset >= size;
  if (finished && !pass.end) {
    throw new ImportRefused(`The file is cut short: it has no end record (${pass.records} records read)`);
  }
  if (finished) {
    judgeFileClaims(step);
    await checkWantedReferences(step);
    await judgeCredentials(step);
  }
  return { offset, finished };
}

function checkHeaderLine(text: string): void {
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new ImportRefused('Line 1 is not JSON: this is not a site file');
  }
  if (header?.type !== 'header' || header.format !== SITE_FORMAT) {
    throw new ImportRefused(`Line 1 is not a ${SITE_FORMAT} header: this is not a site file`);
  }
  if (typeof header.format_version === 'number' && header.format_version > SITE_FORMAT_VERSION) {
    throw new ImportRefused(
      `The file is format version ${header.format_version}; this site reads up to version ${SITE_FORMAT_VERSION}`,
    );
  }
}

function checkEnd(
  step: ImportStep<ValidationPass>,
  end: { records: number; counts: Record<string, number>; objects: number },
): void {
  const { pass, report } = step;
  if (end.records !== pass.records) {
    throw new ImportRefused(`The end record counts ${end.records} records before it; the file holds ${pass.records}`);
  }
  // The end record counts what the records claim; the report counts what the keys say.
  const claimed = pass.claimed;
  const names = new Set([...Object.keys(end.counts), ...Object.keys(claimed)]);
  for (const name of names) {
    if ((end.counts[name] ?? 0) !== (claimed[name] ?? 0)) {
      throw new ImportRefused(
        `The end record counts ${end.counts[name] ?? 0} ${name} items; the file holds ${claimed[name] ?? 0}`,
      );
    }
  }
  if (end.objects !== report.objects) {
    throw new ImportRefused(`The end record counts ${end.objects} objects; the file holds ${report.objects}`);
  }
}

/** What one item tells the checks: its type, the ids it defines and refers to, chains, counters. */
function noteItem(
  step: ImportStep<ValidationPass>,
  entity: string,
  item: RawItem,
  plain: Record<string, unknown>,
): void {
  const { job, pass, scratch } = step;
  const counter = counterTypeOf(plain);
  if (counter !== undefined && typeof plain.value === 'number') {
    scratch.counters[counter] = Math.max(scratch.counters[counter] ?? 0, plain.value);
  }
  const idCounter = ID_COUNTERS[entity];
  // The id the KEY names (decision 254; identity.ts holds the attribute to agree), or the attribute of one it does not.
  const id = idCounter
    ? (idInKey(entity, idCounter.attribute, itemKey(plain)) ?? plain[idCounter.attribute])
    : undefined;
  if (idCounter && typeof id === 'number') {
    scratch.highest[idCounter.counter] = Math.max(scratch.highest[idCounter.counter] ?? 0, id);
  }
  const defined = definedTarget(entity, plain);
  if (defined) {
    const ids = scratch.defined[defined.target] ?? new Set<number>();
    ids.add(defined.id);
    scratch.defined[defined.target] = ids;
    delete scratch.wanted[defined.target]?.[defined.id];
  }
  for (const reference of referencesOf(entity, plain)) {
    if (scratch.defined[reference.target]?.has(reference.id)) continue;
    const wanted = scratch.wanted[reference.target] ?? {};
    wanted[reference.id] ??= `${entity} ${itemLabel(item)}`;
    scratch.wanted[reference.target] = wanted;
  }
  if (entity === 'AuditHead') scratch.chains.push(String(plain.pk).slice('AUDIT#'.length));
  if (entity === 'User') {
    if (isOperatorUser(plain, job.operator.email) && typeof plain.userid === 'number') {
      pass.operator_in_file = plain.userid;
    }
    if (!plain.password_hash && typeof plain.email === 'string') scratch.resets.push(plain.email);
  }
}

const itemKey = (plain: Record<string, unknown>) => ({ pk: String(plain.pk), sk: String(plain.sk) });

/** A uniqueness claim the file carries: kept aside, judged once every record of the file is read. */
function noteFileClaim(step: ImportStep<ValidationPass>, item: RawItem, plain: Record<string, unknown>): void {
  step.scratch.file_claims[String(plain.pk)] = [claimSignature(plain.kind, plain), `Unique ${itemLabel(item)}`];
}

/**
 * The claims a record of the file holds, as items to compare with the target (a claim a site
 * account holds is a collision). Two records of the file claiming one value refuse the import.
 */
function noteDerivedClaims(
  step: ImportStep<ValidationPass>,
  entity: string,
  item: RawItem,
  plain: Record<string, unknown>,
): PendingItem[] {
  const { scratch, report } = step;
  const pending: PendingItem[] = [];
  for (const claim of claimsOf(entity, plain)) {
    const signature = claimSignature(claim.kind, claim.owner);
    const held = scratch.derived_claims[claim.pk];
    if (held !== undefined && held !== signature) {
      listIn(
        invalidList(report),
        `${entity} ${itemLabel(item)}: claims ${claim.pk}, which another record of the file claims`,
      );
      continue;
    }
    scratch.derived_claims[claim.pk] = signature;
    const raw = claimItem(claim);
    pending.push({ raw, plain: unmarshall(raw), entity: 'Unique' });
  }
  return pending;
}

/** Every claim the file carries must be one its records hold, with the same owner (decision 254). */
function judgeFileClaims(step: ImportStep<ValidationPass>): void {
  const { scratch, report } = step;
  for (const [pk, [signature, label]] of Object.entries(scratch.file_claims)) {
    const derived = scratch.derived_claims[pk];
    if (derived === signature) continue;
    listIn(
      invalidList(report),
      derived === undefined
        ? `${label}: no record of the file holds this value; claims are derived from the records they guard`
        : `${label}: names another owner than the record holding this value (${derived}); ` +
            'claims are derived from records',
    );
  }
  scratch.file_claims = {};
  // The writing derives each record's claims again as it writes the record.
  scratch.derived_claims = {};
}

/** Credentials, privileges and webhook secrets: what the report must name (decisions 164, 167). */
function noteTrust(
  step: ImportStep<ValidationPass>,
  shape: EntityShape,
  item: RawItem,
  plain: Record<string, unknown>,
): void {
  const { job, report, scratch } = step;
  const label = `${shape.entity} ${itemLabel(item)}`;
  if (shape.credentialOwner) {
    const owners = credentialOwners(shape, plain);
    if (TRANSIENT_ENTITIES.has(shape.entity)) {
      listIn(listOf(report, 'credentials'), `${label} (user ${owners.join(', ')}): never imported`);
    } else {
      scratch.credentials.push({ label, owners });
    }
  }
  const roles = privilegesOf(shape, plain);
  if (roles.length > 0) {
    const operator = isOperatorUser(plain, job.operator.email) ? ', the operator (keeps Admin)' : '';
    listIn(listOf(report, 'privileged'), `user ${plain.userid} <${plain.email}>: ${roles.join(', ')}${operator}`);
    if (roles.includes('Admin') && !operator) scratch.admin_grants += 1;
  }
  if (shape.entity === 'Webhook') {
    const secret = String(plain.secret ?? '');
    if (isSealedSecret(secret)) {
      scratch.sealed_secrets += 1;
      // The first sealed secret proves the passphrase before anything is written.
      if (scratch.sealed_secrets === 1 && job.secrets_passphrase) openOrRefuse(secret, job.secrets_passphrase);
    } else if (secret === '') listIn(listOf(report, 'webhook_secrets'), `webhook ${plain.webhookid} ${plain.url}`);
  }
}

function openOrRefuse(sealed: string, passphrase: string): string {
  try {
    return openSecret(sealed, passphrase);
  } catch (error) {
    if (error instanceof WrongPassphrase) throw new ImportRefused(error.message);
    throw error;
  }
}

/**
 * A credential is written only for an account the file creates: one for an account this site
 * already has would let the file's author act as it (decision 164). Judged once the file is read.
 */
async function judgeCredentials(step: ImportStep<ValidationPass>): Promise<void> {
  const { report, scratch } = step;
  const ids = [...new Set(scratch.credentials.flatMap((credential) => credential.owners))];
  const keys = ids.map((id) => ({ pk: { S: userKey(id).pk }, sk: { S: userKey(id).sk } }) as RawItem);
  const found = await targetItems(keys);
  scratch.existing_owners = ids.filter((_, index) => targetOf(found, keys[index]!) !== undefined);
  const existing = new Set(scratch.existing_owners);
  for (const { label, owners } of scratch.credentials) {
    const here = owners.filter((id) => existing.has(id));
    listIn(
      listOf(report, 'credentials'),
      here.length > 0
        ? `${label} (user ${owners.join(', ')}): skipped, user ${here.join(', ')} already has an account here`
        : `${label} (user ${owners.join(', ')}): written with its new account`,
    );
  }
  scratch.credentials = [];
}

/** Counts the file's items the target holds identically and those it holds differently (collisions). */
async function compareWithTarget(step: ImportStep<ValidationPass>, items: PendingItem[]): Promise<void> {
  if (items.length === 0) return;
  const { job, pass, report } = step;
  const found = await targetItems(items.map((item) => item.raw));
  for (const { raw, plain, entity } of items) {
    const existing = targetOf(found, raw);
    if (!existing) continue;
    const ignoring = decidedByImport(plain, job.operator.email);
    if (sameItem(raw, existing, ignoring)) {
      report.already_present += 1;
      // Counted as the target scan counts (tokens are left out there, so here too).
      if (LEFT_IN_PLACE.has(entity)) continue;
      if (FIRST_ADMIN_FOOTPRINT.has(entity)) pass.same_footprint += 1;
      else pass.same_other += 1;
      if (entity === 'User') pass.same_users += 1;
    } else {
      listIn(report.collisions, `${entity} ${itemLabel(raw)}`);
    }
  }
}

async function closeObject(step: ImportStep<ValidationPass>, open: OpenObject): Promise<void> {
  const sha256 = open.hash.digest('hex');
  if (open.bytes !== open.size || sha256 !== open.sha256) {
    throw new ImportRefused(`Object ${open.bucket}/${open.key} does not match its size and sha256`);
  }
  if (!open.allowed) return;
  const matches = await targetObjectMatches(open.bucket, open.key, open.size, open.sha256);
  if (matches === true) step.report.already_present += 1;
  if (matches === false) listIn(step.report.collisions, `object ${open.bucket}/${open.key}`);
}

/** References the file does not satisfy itself must find their item in the target table. */
async function checkWantedReferences(step: ImportStep<ValidationPass>): Promise<void> {
  const { scratch, report } = step;
  for (const [target, wanted] of Object.entries(scratch.wanted) as Array<[ReferenceTarget, Record<string, string>]>) {
    const ids = Object.keys(wanted).map(Number);
    const keys = ids.map((id) => {
      const key = REFERENCE_TARGET_KEY[target](id);
      return { pk: { S: key.pk }, sk: { S: key.sk } } as RawItem;
    });
    const found = await targetItems(keys);
    ids.forEach((id, index) => {
      if (!targetOf(found, keys[index]!)) listIn(report.broken_references, `${wanted[id]} -> ${target} ${id}`);
    });
  }
}

/**
 * `empty` mode: scans the target (segment by segment, resumable) counting what it holds besides
 * counters and tokens. Answers true once the whole table was read.
 */
export async function scanTargetStep(step: ImportStep<ValidationPass>): Promise<boolean> {
  const { pass } = step;
  pass.target ??= { segment: 0, last_key: null, footprint: 0, other: 0, users: 0 };
  const { target } = pass;
  while (!scanFinished(target)) {
    for (const item of await nextScanPage(target, SCAN_PAGE_ITEMS)) {
      const plain = unmarshall(item);
      const entity = entityOf(plain);
      if (staysHome(plain) || LEFT_IN_PLACE.has(entity)) continue;
      if (FIRST_ADMIN_FOOTPRINT.has(entity)) target.footprint += 1;
      else target.other += 1;
      if (entity === 'User') target.users += 1;
    }
    if (target.other > pass.same_other) break;
    if (step.full()) return false;
  }
  return true;
}

/** Why an `empty` import is refused by what the target holds, or undefined. */
export function emptyTargetRefusal(step: ImportStep<ValidationPass>): string | undefined {
  const { pass } = step;
  if (!pass.target) return undefined;
  const extra = pass.target.other - pass.same_other;
  if (extra > 0) {
    return (
      `The site is not empty: it holds items besides its first Admin that the file does not hold identically ` +
      `(at least ${extra}). Import into an empty site, or use mode merge.`
    );
  }
  if (pass.target.users - pass.same_users > 1) {
    return 'The site is not empty: it holds more than one account the file does not hold. Use mode merge.';
  }
  return undefined;
}

/** Whether `empty` mode must clear the first Admin's items before writing (some differ from the file's). */
export function firstAdminToClear(step: ImportStep<ValidationPass>): boolean {
  return (step.pass.target?.footprint ?? 0) > step.pass.same_footprint;
}
