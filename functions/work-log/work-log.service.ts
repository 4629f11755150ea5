/**
 * Work-log use cases (docs/work-log.md). An entry is one run-through of a guide by the user who
 * started it; its timing follows shared/domain/work-log-timing.ts. Who may do what:
 * - start: whoever can view the guide; the entry is theirs (userid) and they work it.
 * - pause, resume, suspend, finish, step data: the user working the entry (operator_userid).
 * - cancel: the operator or an Admin. assume: whoever can view the guide, when suspended.
 * - read: the creator, the operator, Admins and the guide's editors; a suspended entry also
 *   whoever can view the guide (they may assume it). delete: the creator, the operator, Admins.
 * Every change is a conditional write on what was read (version, status, operator, timingid);
 * a lost race reads again, and a change that is no longer legal is a 409 with the entry.
 */
import { outboxPuts } from '../../shared/db/entities/outbox.ts';
import { workLogEvents } from '../../shared/domain/events/activity-events.ts';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
  type FieldProblem,
} from '../../shared/domain/errors.ts';
import {
  activateStep,
  applyOperation,
  isEnded,
  startTiming,
  type TimingOperation,
} from '../../shared/domain/work-log-timing.ts';
import { stepValue } from '../../shared/domain/step-forms.ts';
import { isAdmin, type Caller } from '../../shared/domain/caller.ts';
import { assertCanViewGuide, canEditGuide, canViewGuideNow } from '../../shared/content/guide-access.ts';
import { nextId } from '../../shared/db/counters.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { TransactionConditionFailed, type LabelledWrite } from '../../shared/db/transactions.ts';
import { labelsIn, retryOnLostRace } from '../../shared/db/retry.ts';
import { getGuide, getGuides, type GuideRecord } from '../../shared/db/entities/guide.ts';
import { getFieldRevisions, listCurrentForms } from '../../shared/db/entities/step-form.ts';
import { getMediaItem } from '../../shared/db/entities/media-item.ts';
import {
  deleteEntry,
  entryAcceptsDataCheck,
  entryUpdateWrite,
  listEntryIds,
  listSuspendedEntryIds,
  readEntries,
  readEntry,
  valueDelete,
  valuePut,
  writeEntryChange,
  type StoredEntry,
  type WorkLogEntryRecord,
  type WorkLogFilter,
  type WorkLogValueRecord,
} from '../../shared/db/entities/work-log.ts';
import { recordDocumentCompleted, recordDocumentStarted } from '../../shared/training/progress.ts';
import { entryView, type EntryView } from '../../shared/views/work-log-views.ts';
import type { Page } from '../../shared/db/paging.ts';
import type { StepDataInput, WorkLogListQuery } from './work-log.schemas.ts';
import { answerHeldGuid, type Created, requestFingerprint } from '../../shared/domain/client-guid.ts';
import { claimClientGuid, clientGuidHolder, createOnce, lostGuidRace } from '../../shared/db/client-guid.ts';
import { assertNotBlocked, commitHandover, gateOnStart, insertGatedEntry } from './qualification.service.ts';

export type EntryOperation = Exclude<TimingOperation, 'activateStep'>;

/** Step data of one request is one transaction with the entry's condition. */
export const MAX_VALUES_PER_SAVE = 90;
export const MAX_WORKORDERID_LENGTH = 128;
const MAX_ATTEMPTS = 8;

/** The entry's version guard failing (or a transaction conflict on it) means another change came first. */
const entryRace = labelsIn('entry');

async function loadEntry(entryid: number): Promise<StoredEntry> {
  const stored = await readEntry(entryid, { consistent: true });
  if (!stored) throw new NotFoundError(`No work log entry with entryid ${entryid}`);
  return stored;
}

/** 409 with the entry as it is, and why. */
function conflict(message: string, stored: StoredEntry): ConflictError {
  return new ConflictError(message, { message, ...entryView(stored, nowSeconds()) });
}

function canRead(caller: Caller, entry: WorkLogEntryRecord, guide: GuideRecord | undefined): boolean {
  if (isAdmin(caller) || caller.userid === entry.userid || caller.userid === entry.operator_userid) return true;
  if (!guide) return false;
  return canEditGuide(caller, guide) || (entry.status === 'suspended' && canViewGuideNow(caller, guide));
}

function assertOperator(caller: Caller, entry: WorkLogEntryRecord, what: string): void {
  if (caller.userid !== entry.operator_userid)
    throw new ForbiddenError(`Only the user working this entry (userid ${entry.operator_userid}) may ${what}`);
}

/** The highest form revision among the current forms of the guide and its prerequisites (null without forms). */
async function maxFormRevision(guide: GuideRecord): Promise<number | null> {
  const forms = (await Promise.all([guide.guideid, ...guide.prerequisites].map(listCurrentForms))).flat();
  return forms.length === 0 ? null : Math.max(...forms.map((form) => form.form_revisionid));
}

export interface CreateEntryInput {
  guideid?: number;
  workorderid?: string;
  /** The device's own id of the entry: unique per user (decision 224). */
  client_guid?: string;
}

/**
 * Starts an entry. With a `client_guid` the caller already used for an entry: that entry (not
 * created) when the request is the same, 409 with it when it differs.
 */
export async function create(caller: Caller, input: CreateEntryInput): Promise<Created<EntryView>> {
  return createOnce({
    kind: 'work_log',
    userid: caller.userid,
    guid: input.client_guid,
    request: { guideid: input.guideid, workorderid: input.workorderid?.trim() },
    existing: (ref) => get(caller, Number(ref)),
    make: (claim) => createEntry(caller, input, claim),
  });
}

async function createEntry(
  caller: Caller,
  input: CreateEntryInput,
  claim?: (entryid: number) => LabelledWrite,
): Promise<EntryView> {
  if (input.guideid === undefined)
    throw ValidationError.field('guideid', 'missing_field', 'guideid is required (JSON body or query string)');
  const guide = await assertCanViewGuide(caller, input.guideid);
  // The gate on qualification (docs/competency.md): 403 when it blocks, before validation.
  const gate = await gateOnStart(guide.guideid, caller.userid);
  const workorderid = input.workorderid?.trim();
  if (!workorderid)
    throw ValidationError.field('workorderid', 'missing_field', 'workorderid is required (JSON body or query string)');
  if (workorderid.length > MAX_WORKORDERID_LENGTH || /[\u0000-\u001f]/.test(workorderid)) {
    throw ValidationError.field(
      'workorderid',
      'invalid_workorderid',
      `workorderid is one line of at most ${MAX_WORKORDERID_LENGTH} characters`,
    );
  }
  const [entryid, maxForm] = await Promise.all([nextId('work_log_entry'), maxFormRevision(guide)]);
  const now = nowSeconds();
  const entry: WorkLogEntryRecord = {
    ...startTiming(now),
    entryid,
    guideid: guide.guideid,
    userid: caller.userid,
    operator_userid: caller.userid,
    workorderid,
    guide_revisionid: guide.revisionid,
    max_form_revisionid: maxForm,
    timingid: 0,
    version: 1,
  };
  await insertGatedEntry(entry, gate, claim ? [claim(entryid)] : []);
  await recordDocumentStarted({ userid: caller.userid, doctype: 'guide', docid: guide.guideid, at: now });
  return entryView({ entry, values: [] }, now);
}

export async function get(caller: Caller, entryid: number) {
  const stored = await loadEntry(entryid);
  if (!canRead(caller, stored.entry, await getGuide(stored.entry.guideid)))
    throw new ForbiddenError('You may not see this work log entry');
  return entryView(stored, nowSeconds());
}

/**
 * GET /work_log. Admins and the guide's editors (with `guideid`) see everyone's entries;
 * anyone else sees the entries they started (another `userid` is 403).
 */
export async function list(caller: Caller, query: WorkLogListQuery) {
  const filter: WorkLogFilter = { guideid: query.guideid, userid: query.userid, workorderid: query.workorderid };
  if (!isAdmin(caller)) {
    const guide = query.guideid === undefined ? undefined : await getGuide(query.guideid);
    if (!guide || !canEditGuide(caller, guide)) {
      if (query.userid !== undefined && query.userid !== caller.userid) {
        throw new ForbiddenError("Only Admins, and editors of the guide named by guideid, see other users' entries");
      }
      filter.userid = caller.userid;
    }
  }
  const ids =
    query.client_guid === undefined
      ? await listEntryIds(filter, query)
      : await entryOfGuid(filter, query, caller.userid);
  const entries = await readEntries(ids);
  const now = nowSeconds();
  return { results: entries.map((stored) => entryView(stored, now)) };
}

/** The entry (at most one) a user made under a client guid, if it passes the list's other filters. */
async function entryOfGuid(filter: WorkLogFilter, query: WorkLogListQuery, callerid: number): Promise<number[]> {
  if (query.offset > 0 || query.client_guid === undefined) return [];
  const owner = filter.userid ?? callerid;
  const holder = await clientGuidHolder('work_log', owner, query.client_guid);
  if (!holder) return [];
  const stored = await readEntry(Number(holder.ref));
  if (!stored) return [];
  const { entry } = stored;
  if (filter.guideid !== undefined && entry.guideid !== filter.guideid) return [];
  if (filter.workorderid !== undefined && entry.workorderid !== filter.workorderid) return [];
  return [entry.entryid];
}

export async function suspended(caller: Caller, guideid: number, page: Page) {
  await assertCanViewGuide(caller, guideid);
  const entries = await readEntries(await listSuspendedEntryIds(guideid, page));
  const now = nowSeconds();
  return {
    results: entries.filter((stored) => stored.entry.status === 'suspended').map((stored) => entryView(stored, now)),
  };
}

async function authorizeOperation(caller: Caller, entry: WorkLogEntryRecord, operation: EntryOperation): Promise<void> {
  if (operation === 'assume') {
    await assertCanViewGuide(caller, entry.guideid);
    // The gate holds for whoever takes the entry over (decision 263), not only for who started it.
    await assertNotBlocked(entry.guideid, caller.userid);
    return;
  }
  if (operation === 'cancel' && isAdmin(caller)) return;
  assertOperator(caller, entry, `${operation} it`);
  // And at the end: the operator finishing must still pass a blocking gate.
  if (operation === 'finish') await assertNotBlocked(entry.guideid, entry.operator_userid);
}

/**
 * finish, cancel, pause, resume, suspend, assume: the timing model's move, applied on condition of the version read.
 */
export async function transition(caller: Caller, entryid: number, operation: EntryOperation) {
  const { stored, next, now } = await retryOnLostRace(
    async () => {
      const stored = await loadEntry(entryid);
      const { entry } = stored;
      await authorizeOperation(caller, entry, operation);
      const now = nowSeconds();
      const result = applyOperation(entry, operation, now);
      if (!result.ok) throw conflict(result.message, stored);
      const guide = operation === 'finish' ? await getGuide(entry.guideid) : undefined;
      const next: WorkLogEntryRecord = {
        ...entry,
        ...result.timing,
        operator_userid: operation === 'assume' ? caller.userid : entry.operator_userid,
        // Finishing records the guide's revision at the end (a change since the start means it was edited).
        guide_revisionid: guide?.revisionid ?? entry.guide_revisionid,
        timingid: await nextId('work_log_timing'),
        version: entry.version + 1,
      };
      const changeWrites = [entryUpdateWrite(next, entry.version), ...outboxPuts(workLogEvents(entry, next))];
      // A change of operator carries the gate's record over to the new one (decision 305).
      if (next.operator_userid !== entry.operator_userid) await commitHandover(entry, next, changeWrites, now);
      else await writeEntryChange(changeWrites);
      return { stored, next, now };
    },
    { attempts: MAX_ATTEMPTS, raceLabels: entryRace, message: 'The entry is being changed by others; try again' },
  );
  if (operation === 'finish') {
    await recordDocumentCompleted({
      userid: next.operator_userid,
      doctype: 'guide',
      docid: next.guideid,
      work_log_entryid: next.entryid,
      revisionid: next.guide_revisionid,
      at: next.endtime ?? now,
    });
  } else if (operation === 'assume') {
    await recordDocumentStarted({ userid: caller.userid, doctype: 'guide', docid: next.guideid, at: now });
  }
  return entryView({ entry: next, values: stored.values }, now);
}

type PlannedValue = { put: Omit<WorkLogValueRecord, 'date'> } | { remove: number };

/** Checks every value against its field (422 naming each bad one); null removes a value. */
async function planValues(
  caller: Caller,
  entry: WorkLogEntryRecord,
  guide: GuideRecord | undefined,
  fields: Record<string, unknown>,
): Promise<PlannedValue[]> {
  const keys = Object.keys(fields);
  if (keys.length > MAX_VALUES_PER_SAVE)
    throw ValidationError.field('fields', 'too_many', `At most ${MAX_VALUES_PER_SAVE} values per request`);
  const problems: FieldProblem[] = [];
  const bad = (key: string, code: string, message: string) =>
    problems.push({ field: `fields.${key}`, code, message: `fields.${key}: ${message}` });
  const ids = keys.filter((key) => /^\d{1,15}$/.test(key)).map(Number);
  const definitions = new Map((await getFieldRevisions(ids)).map((field) => [field.field_revisionid, field]));
  const guides = new Set([entry.guideid, ...(guide?.prerequisites ?? [])]);
  const planned: PlannedValue[] = [];
  const media: Array<{ key: string; itemid: number; mediaType: string }> = [];
  for (const key of keys) {
    if (!/^\d{1,15}$/.test(key)) {
      bad(key, 'invalid_field_revisionid', 'keys of fields are field_revisionids');
      continue;
    }
    const field = definitions.get(Number(key));
    if (!field) {
      bad(key, 'unknown_field', 'no form field has this field_revisionid');
      continue;
    }
    if (!guides.has(field.guideid)) {
      bad(key, 'not_in_guide', "this field belongs to a step outside the entry's guide and its prerequisites");
      continue;
    }
    const raw = fields[key];
    if (raw === null) {
      planned.push({ remove: field.field_revisionid });
      continue;
    }
    const checked = stepValue(field, raw);
    if (checked.kind === 'problem') {
      bad(key, checked.code, `${field.field_type} field "${field.label}": ${checked.message}`);
      continue;
    }
    const value = checked.kind === 'text' ? checked.value : String(checked.itemid);
    planned.push({
      put: {
        entryid: entry.entryid,
        field_revisionid: field.field_revisionid,
        stepid: field.stepid,
        label: field.label,
        field_type: field.field_type,
        value,
        userid: caller.userid,
      },
    });
    if (checked.kind === 'media') media.push({ key, itemid: checked.itemid, mediaType: checked.mediaType });
  }
  const items = await Promise.all(media.map((wanted) => getMediaItem(wanted.itemid)));
  media.forEach((wanted, index) => {
    const item = items[index];
    // Usable once its file is stored (processing or ready): not while a browser upload is pending, nor after processing
    // failed.
    if (
      !item ||
      item.userid !== caller.userid ||
      item.type !== wanted.mediaType ||
      (item.status !== 'ready' && item.status !== 'processing')
    ) {
      bad(
        wanted.key,
        'not_owned_media',
        `media item ${wanted.itemid} is not a usable ${wanted.mediaType} in your library`,
      );
    }
  });
  if (problems.length > 0) throw new ValidationError(`Invalid step data: ${problems[0].message}`, problems);
  return planned;
}

/** The steps an entry can move to: those of its guide and of the guide's prerequisites. */
async function assertStepOfGuide(guide: GuideRecord | undefined, stepid: number): Promise<void> {
  const guides = guide ? [guide, ...(await getGuides(guide.prerequisites))] : [];
  if (!guides.some((each) => each.steps.some((step) => step.stepid === stepid))) {
    throw ValidationError.field(
      'stepid',
      'not_in_guide',
      `Step ${stepid} is not a step of this entry's guide or its prerequisites`,
    );
  }
}

/**
 * PUT /work_log/{entryid}/stepData: saves values (merged per field: values other devices saved
 * stay) and, with `stepid`, makes that step the active one. `lasttimingid` (the timingid this
 * device last saw) must still be the entry's: otherwise 409 with the entry as it is, and nothing
 * is written. Answers 200 without a body, as the real service does.
 */
/**
 * Saves step data. With a `client_guid` (decision 224) the save happens once: sent again with the
 * same request it is answered without being applied again (false); with another, 409 with the entry.
 */
export async function saveStepData(caller: Caller, entryid: number, input: StepDataInput): Promise<boolean> {
  const guid = input.client_guid;
  if (guid === undefined) {
    await saveStepDataOnce(caller, entryid, input);
    return true;
  }
  const { client_guid: _, ...request } = input;
  const fingerprint = requestFingerprint({ entryid, ...request });
  for (;;) {
    const holder = await clientGuidHolder('step_data', caller.userid, guid);
    if (holder) {
      await answerHeldGuid(holder, fingerprint, async () => entryView(await loadEntry(entryid), nowSeconds()));
      return false;
    }
    try {
      await saveStepDataOnce(
        caller,
        entryid,
        input,
        claimClientGuid('step_data', caller.userid, guid, { ref: String(entryid), fingerprint }),
      );
      return true;
    } catch (error) {
      if (!lostGuidRace(error)) throw error;
    }
  }
}

async function saveStepDataOnce(
  caller: Caller,
  entryid: number,
  input: StepDataInput,
  claim?: LabelledWrite,
): Promise<void> {
  let planned: PlannedValue[] | undefined;
  await retryOnLostRace(
    async () => {
      const stored = await loadEntry(entryid);
      const { entry } = stored;
      assertOperator(caller, entry, 'save its step data');
      await assertNotBlocked(entry.guideid, caller.userid);
      if (input.fields === undefined && input.stepid === undefined)
        throw ValidationError.field(
          'fields',
          'missing_field',
          'fields is required: {"<field_revisionid>": value, ...}',
        );
      const expectedTimingid = input.lasttimingid === undefined ? undefined : (input.lasttimingid ?? 0);
      if (expectedTimingid !== undefined && expectedTimingid !== entry.timingid) {
        throw conflict(
          `lasttimingid ${input.lasttimingid} is stale: the entry's timingid is ${entry.timingid || null}; ` +
            `nothing was saved`,
          stored,
        );
      }
      if (entry.status === 'suspended')
        throw conflict('The entry is suspended; assume it before saving step data', stored);
      if (isEnded(entry.status))
        throw conflict(`The entry is ${entry.status}; its step data can no longer change`, stored);

      const guide = await getGuide(entry.guideid);
      planned ??= await planValues(caller, entry, guide, input.fields ?? {});
      const now = nowSeconds();
      const writes: LabelledWrite[] = planned.map((value) =>
        'put' in value ? valuePut({ ...value.put, date: now }) : valueDelete(entryid, value.remove),
      );
      let timingWrite: LabelledWrite | undefined;
      if (input.stepid !== undefined) {
        await assertStepOfGuide(guide, input.stepid);
        const moved = activateStep(entry, input.stepid, now);
        if (!moved.ok) throw conflict(moved.message, stored);
        if (moved.changed) {
          const next: WorkLogEntryRecord = {
            ...entry,
            ...moved.timing,
            timingid: await nextId('work_log_timing'),
            version: entry.version + 1,
          };
          timingWrite = entryUpdateWrite(next, entry.version, expectedTimingid);
        }
      }
      // Nothing to write: the checks above were the whole request.
      if (!timingWrite && writes.length === 0) return;
      writes.unshift(timingWrite ?? entryAcceptsDataCheck(entryid, caller.userid, expectedTimingid));
      if (claim) writes.push(claim);
      await writeEntryChange(writes);
    },
    { attempts: MAX_ATTEMPTS, raceLabels: entryRace, message: 'The entry is being changed by others; try again' },
  );
}

export async function remove(caller: Caller, entryid: number): Promise<void> {
  const { entry } = await loadEntry(entryid);
  if (!isAdmin(caller) && caller.userid !== entry.userid && caller.userid !== entry.operator_userid) {
    throw new ForbiddenError('Only the user who started the entry, the user working it and Admins may delete it');
  }
  try {
    await deleteEntry(entry);
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('entry'))
      throw new NotFoundError(`No work log entry with entryid ${entryid}`);
    throw error;
  }
}
