/**
 * Read-and-understood acknowledgements (docs/competency.md). Who may do what:
 * - list pending: one's own; a team's: its owner or an Admin; a document's: whoever may change it
 *   (guide: its editors; wiki page: Authors) .
 * - read one with its diff: the person asked; others' (?userid=): whoever may change the document.
 * - sign: the person asked, with their password (an e-signature meaning `acknowledged`).
 * - who has / has not signed, retraining mark, document settings: whoever may change the document.
 * Signing and marking are each one transaction with their audit record.
 */
import { nowSeconds } from '../../shared/clock.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { actorFields, auditActor, type Caller, hasRole, isAdmin } from '../../shared/domain/caller.ts';
import { canEditGuide } from '../../shared/content/guide-access.ts';
import { appendAudit, auditSubject } from '../../shared/db/audit.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';
import { clientGuidHolder } from '../../shared/db/client-guid.ts';
import { getGuide } from '../../shared/db/entities/guide.ts';
import { getWiki } from '../../shared/db/entities/wiki.ts';
import { getTeam, listMembers } from '../../shared/db/entities/team.ts';
import {
  acknowledgementsAll,
  acknowledgementsPage,
  documentPendingCollection,
  getAcknowledgement,
  releaseAcknowledgements,
  retrainingMarkWrite,
  userPendingCollection,
  type AckDoctype,
  type AcknowledgementRecord,
} from '../../shared/db/entities/acknowledgement.ts';
import { getTrainingSettings, putTrainingSettings } from '../../shared/db/entities/training-settings.ts';
import { refreshDocumentTrainees } from '../../shared/training/release-refresh.ts';
import { emitAcknowledgementOverdue } from '../../shared/training/acknowledgement-overdue.ts';
import { acknowledgementView } from '../../shared/views/competency-views.ts';
import type { Page } from '../../shared/db/paging.ts';
import { requireRelease } from '../../shared/training/acknowledgement-sign.ts';
import { assignRetrainingAfterMark } from '../../shared/training/retraining.ts';
import { acknowledgementDiff } from '../../shared/training/acknowledgement-diff.ts';
import type { DocumentSettingsInput, PendingQuery } from './acknowledgements.schemas.ts';

/** Team lists read at most this many members' pending acknowledgements. */
const MAX_TEAM_MEMBERS = 1000;

/** Whether the caller may change the document (and so manage its acknowledgements); 404 when it is gone. */
async function canManageDocument(caller: Caller, doctype: AckDoctype, docid: number): Promise<boolean> {
  if (doctype === 'guide') {
    const guide = await getGuide(docid);
    if (!guide) throw new NotFoundError(`No guide with guideid ${docid}`);
    return canEditGuide(caller, guide);
  }
  if (!(await getWiki(docid))) throw new NotFoundError(`No wiki page with wikiid ${docid}`);
  return hasRole(caller, 'Author');
}

export async function assertManagesDocument(caller: Caller, doctype: AckDoctype, docid: number): Promise<void> {
  if (!(await canManageDocument(caller, doctype, docid)))
    throw new ForbiddenError(
      `Only those who may change this ${doctype === 'guide' ? 'guide' : 'wiki page'} may do this`,
    );
}

export async function listPending(caller: Caller, query: PendingQuery) {
  const page: Page = { limit: query.limit, offset: query.offset };
  const filters = [query.teamid, query.guideid, query.wikiid].filter((value) => value !== undefined);
  if (filters.length > 1)
    throw ValidationError.field('teamid', 'conflicting_filters', 'Name at most one of teamid, guideid and wikiid');
  const now = nowSeconds();
  let acks: AcknowledgementRecord[];
  if (query.client_guid !== undefined) {
    if (filters.length > 0)
      throw ValidationError.field('client_guid', 'conflicting_filters', 'client_guid names one of your own');
    const holder = await clientGuidHolder('acknowledgement', caller.userid, query.client_guid);
    const ack = holder && page.offset === 0 ? await getAcknowledgement(Number(holder.ref), caller.userid) : undefined;
    return ack ? [acknowledgementView(ack, now)] : [];
  }
  if (query.teamid !== undefined) {
    const team = await getTeam(query.teamid);
    if (!team) throw new NotFoundError(`No team with teamid ${query.teamid}`);
    if (!isAdmin(caller) && team.owner !== caller.userid)
      throw new ForbiddenError("Only the team's owner and Admins see its pending acknowledgements");
    const members = await listMembers(team.teamid, { limit: MAX_TEAM_MEMBERS, offset: 0 });
    const all = (
      await Promise.all(members.map((member) => acknowledgementsAll(userPendingCollection(member.userid))))
    ).flat();
    all.sort((a, b) => a.due_date - b.due_date || a.releaseid - b.releaseid || a.userid - b.userid);
    acks = all.slice(page.offset, page.offset + page.limit);
  } else if (query.guideid !== undefined || query.wikiid !== undefined) {
    const doc =
      query.guideid !== undefined
        ? { doctype: 'guide' as const, docid: query.guideid }
        : { doctype: 'wiki' as const, docid: query.wikiid! };
    await assertManagesDocument(caller, doc.doctype, doc.docid);
    acks = await acknowledgementsPage(documentPendingCollection(doc), page);
  } else {
    acks = await acknowledgementsPage(userPendingCollection(caller.userid), page);
  }
  await emitAcknowledgementOverdue(acks, now);
  return acks.map((ack) => acknowledgementView(ack, now));
}

export async function getOne(caller: Caller, releaseid: number, userid: number | undefined) {
  const release = await requireRelease(releaseid);
  const whose = userid ?? caller.userid;
  if (whose !== caller.userid) await assertManagesDocument(caller, release.doctype, release.docid);
  const ack = await getAcknowledgement(releaseid, whose);
  if (!ack) throw new NotFoundError(`User ${whose} was not asked to acknowledge release ${releaseid}`);
  return { acknowledgement: acknowledgementView(ack, nowSeconds()), diff: await acknowledgementDiff(ack) };
}

export { sign, signOnce, type IntentSignature } from '../../shared/training/acknowledgement-sign.ts';

export async function signatures(caller: Caller, releaseid: number) {
  const release = await requireRelease(releaseid);
  await assertManagesDocument(caller, release.doctype, release.docid);
  const now = nowSeconds();
  const acks = await releaseAcknowledgements(releaseid);
  await emitAcknowledgementOverdue(
    acks.filter((ack) => ack.status === 'pending'),
    now,
  );
  return {
    releaseid,
    signed: acks
      .filter((ack) => ack.status === 'signed')
      .map((ack) => ({
        userid: ack.userid,
        signed_date: ack.signed_date ?? 0,
        awaiting_countersignature: Boolean(ack.countersign_stepids?.length) && !ack.countersignature,
      })),
    not_signed: acks
      .filter((ack) => ack.status === 'pending')
      .map((ack) => ({ userid: ack.userid, due_date: ack.due_date, overdue: now >= ack.due_date })),
  };
}

/**
 * Marks a released release as needing retraining: completions and levels earned before it no
 * longer carry over, acknowledged or not (docs/stage-status.md row 5b). Forward only: a newer
 * mark already there is 409. Then the stored rows of every trainee of the document (its trainee
 * index: whoever has a completion of it, asked to acknowledge or not) are recomputed, and the
 * holders of a level in a skill of the guide earned before it are assigned the courses that restore it.
 */
export async function markRetraining(caller: Caller, releaseid: number) {
  const release = await requireRelease(releaseid);
  await assertManagesDocument(caller, release.doctype, release.docid);
  if (release.status !== 'released' || release.major === null || release.minor === null)
    throw new ConflictError(
      `Release ${releaseid} is not released (${release.status}); only a released version can be marked`,
    );
  const mark = {
    doctype: release.doctype,
    docid: release.docid,
    releaseid,
    major: release.major,
    minor: release.minor,
    userid: caller.userid,
    date: nowSeconds(),
  };
  try {
    await appendAudit(
      {
        action: 'release.retraining_required',
        ...auditActor(caller),
        subjects: [auditSubject.document(release.doctype, release.docid)],
        details: { releaseid, version: release.version },
      },
      [retrainingMarkWrite(mark)],
    );
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('retraining-mark'))
      throw new ConflictError(`A newer release of this document is already marked as needing retraining`);
    throw error;
  }
  await refreshDocumentTrainees(release.doctype, release.docid);
  // Holders of a level earned on an older release get the course(s) that restore it (decision 316).
  if (release.doctype === 'guide')
    await assignRetrainingAfterMark(
      { guideid: release.docid, releaseid, version: { major: mark.major, minor: mark.minor } },
      mark.date,
    );
  return { releaseid, version: release.version!, retraining: true as const };
}

export async function getDocumentSettings(caller: Caller, doctype: AckDoctype, docid: number) {
  await assertManagesDocument(caller, doctype, docid);
  return settingsView(await getTrainingSettings({ kind: doctype, docid }));
}

export async function putDocumentSettings(
  caller: Caller,
  doctype: AckDoctype,
  docid: number,
  input: DocumentSettingsInput,
) {
  await assertManagesDocument(caller, doctype, docid);
  const before = await getTrainingSettings({ kind: doctype, docid });
  const after = {
    ...before,
    acknowledgement_strictness: input.strictness === undefined ? before.acknowledgement_strictness : input.strictness,
    acknowledgement_due_days: input.due_days === undefined ? before.acknowledgement_due_days : input.due_days,
    audience_userids: input.audience_userids ? [...new Set(input.audience_userids)] : before.audience_userids,
    modified_date: nowSeconds(),
    ...actorFields('modified_by', caller),
  };
  await putTrainingSettings({ kind: doctype, docid }, after);
  await appendAudit({
    action: 'acknowledgement.settings_changed',
    ...auditActor(caller),
    subjects: [auditSubject.document(doctype, docid)],
    details: { old: settingsView(before), new: settingsView(after) },
  });
  return settingsView(after);
}

function settingsView(settings: {
  acknowledgement_strictness: 'major' | 'minor' | null;
  acknowledgement_due_days: number | null;
  audience_userids: number[];
}) {
  return {
    strictness: settings.acknowledgement_strictness,
    due_days: settings.acknowledgement_due_days,
    audience_userids: settings.audience_userids,
  };
}
