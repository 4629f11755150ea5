/**
 * Comprehension and decline (docs/competency.md "Comprehension and decline", decision 304):
 * - a release's comprehension quiz: whoever may change the document ties an existing, enabled
 *   quiz to it (or unties it); signing then waits for a pass (shared/training/comprehension-check.ts);
 * - decline: the person asked declines, with a comment, while the acknowledgement is pending; the
 *   decline is kept as the acknowledgement's history, audited, emitted as
 *   `acknowledgement.declined` in the same transaction, and mailed to the document's owner. The
 *   acknowledgement stays pending (still due): the owner answers, the person signs later.
 */
import { randomUUID } from 'node:crypto';
import { nowSeconds } from '../../shared/clock.ts';
import { config } from '../../shared/config.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { actorFields, auditActor, type Caller } from '../../shared/domain/caller.ts';
import { domainEvent } from '../../shared/domain/events/catalogue.ts';
import { AUDIT_CHAIN_LABELS, appendAudit, auditSubject } from '../../shared/db/audit.ts';
import { labelsIn, retryOnLostRace } from '../../shared/db/retry.ts';
import { outboxPuts } from '../../shared/db/entities/outbox.ts';
import { getAcknowledgement } from '../../shared/db/entities/acknowledgement.ts';
import {
  comprehensionQuizWrite,
  declinePut,
  declinesOf,
  getComprehensionQuiz,
  MAX_DECLINES,
  type AcknowledgementDeclineRecord,
} from '../../shared/db/entities/acknowledgement-comprehension.ts';
import { getGuide } from '../../shared/db/entities/guide.ts';
import { getQuiz } from '../../shared/db/entities/quiz.ts';
import { getRelease } from '../../shared/db/entities/release.ts';
import { getUser } from '../../shared/db/entities/user.ts';
import { getWiki } from '../../shared/db/entities/wiki.ts';
import { sendMail } from '../../shared/mail/mailer.ts';
import { log } from '../../shared/observability/logger.ts';
import { assertManagesDocument } from './acknowledgements.service.ts';
import { notPending } from '../../shared/training/acknowledgement-sign.ts';
import { passedSince } from '../../shared/training/comprehension-check.ts';
import type { ComprehensionInput, DeclineInput } from './comprehension.schemas.ts';

async function requireRelease(releaseid: number) {
  const release = await getRelease(releaseid);
  if (!release) throw new NotFoundError(`No release with releaseid ${releaseid}`);
  return release;
}

/** The release's comprehension quiz (null: none), and whether the caller, if asked, passed it (else null). */
export async function getComprehension(caller: Caller, releaseid: number) {
  const release = await requireRelease(releaseid);
  const tied = await getComprehensionQuiz(releaseid);
  const ack = await getAcknowledgement(releaseid, caller.userid);
  // The person asked, or whoever may change the document.
  if (!ack) await assertManagesDocument(caller, release.doctype, release.docid);
  const passed = tied && ack ? await passedSince(caller.userid, tied.quizid, ack.created_date) : null;
  return { releaseid: release.releaseid, quizid: tied?.quizid ?? null, passed };
}

export async function putComprehension(caller: Caller, releaseid: number, input: ComprehensionInput) {
  const release = await requireRelease(releaseid);
  await assertManagesDocument(caller, release.doctype, release.docid);
  if (input.quizid !== null) {
    const quiz = await getQuiz(input.quizid);
    if (!quiz) throw ValidationError.field('quizid', 'not_found', `No quiz with quizid ${input.quizid}`);
    if (!quiz.enabled) throw ValidationError.field('quizid', 'disabled', `Quiz ${input.quizid} is disabled`);
  }
  const before = await getComprehensionQuiz(releaseid);
  const record =
    input.quizid === null
      ? null
      : { releaseid, quizid: input.quizid, ...actorFields('userid', caller), date: nowSeconds() };
  await appendAudit(
    {
      action: 'acknowledgement.comprehension_set',
      ...auditActor(caller),
      subjects: [auditSubject.document(release.doctype, release.docid)],
      details: { releaseid, old: before?.quizid ?? null, new: input.quizid },
    },
    [comprehensionQuizWrite(releaseid, record)],
  );
  return { releaseid, quizid: input.quizid, passed: null };
}

const declineView = (decline: AcknowledgementDeclineRecord) => ({
  declineid: decline.declineid,
  releaseid: decline.releaseid,
  userid: decline.userid,
  comment: decline.comment,
  date: decline.date,
});

/** The owner of the document (its author), to be told; null when a site API token made it. */
async function documentOwner(doctype: 'guide' | 'wiki', docid: number): Promise<number | null> {
  const owner = doctype === 'guide' ? (await getGuide(docid))?.userid : (await getWiki(docid))?.author_userid;
  return owner ? owner : null;
}

export async function decline(caller: Caller, releaseid: number, input: DeclineInput) {
  const release = await requireRelease(releaseid);
  const declined = await retryOnLostRace(
    async () => {
      const ack = await getAcknowledgement(releaseid, caller.userid, true);
      if (!ack) throw new NotFoundError(`You were not asked to acknowledge release ${releaseid}`);
      if (ack.status !== 'pending') throw notPending(ack);
      const earlier = await declinesOf(releaseid, caller.userid);
      if (earlier.length >= MAX_DECLINES)
        throw new ConflictError(
          `At most ${MAX_DECLINES} declines are kept per acknowledgement; ask the owner directly`,
        );
      const record: AcknowledgementDeclineRecord = {
        declineid: randomUUID(),
        releaseid,
        userid: caller.userid,
        doctype: ack.doctype,
        docid: ack.docid,
        comment: input.comment,
        date: nowSeconds(),
      };
      await appendAudit(
        {
          action: 'acknowledgement.declined',
          ...auditActor(caller),
          subjects: [auditSubject.user(caller.userid), auditSubject.document(ack.doctype, ack.docid)],
          details: { releaseid, version: ack.version, declineid: record.declineid, comment: record.comment },
        },
        [
          declinePut(record),
          ...outboxPuts([
            domainEvent('acknowledgement.declined', `ACK#${releaseid}#${caller.userid}`, {
              releaseid,
              doctype: ack.doctype,
              docid: ack.docid,
              userid: caller.userid,
              declineid: record.declineid,
              comment: record.comment,
            }),
          ]),
        ],
      );
      return { record, version: ack.version };
    },
    {
      attempts: 6,
      raceLabels: labelsIn('decline', ...AUDIT_CHAIN_LABELS),
      message: 'This acknowledgement was being changed; try again',
    },
  );
  await mailOwner(release.doctype, release.docid, declined.record, declined.version);
  return declineView(declined.record);
}

/** The owner's mail, after the decline stands (a mail failure is logged, not the person's). */
async function mailOwner(
  doctype: 'guide' | 'wiki',
  docid: number,
  record: AcknowledgementDeclineRecord,
  version: string,
): Promise<void> {
  try {
    const ownerid = await documentOwner(doctype, docid);
    const [owner, person] = await Promise.all([ownerid ? getUser(ownerid) : undefined, getUser(record.userid)]);
    if (!owner?.email) return;
    const { STEPWISE_SITE_NAME, STEPWISE_SITE_URL } = config();
    const who = person?.username ?? `User ${record.userid}`;
    await sendMail({
      to: owner.email,
      kind: 'acknowledgement-declined',
      subject: `${STEPWISE_SITE_NAME}: ${who} declined to acknowledge ${doctype} ${docid} ${version}`,
      text:
        `${who} declined to sign the acknowledgement of release ${version} ` +
        `of ${doctype} ${docid} (release ${record.releaseid}), saying:\n\n${record.comment}\n\n` +
        `The acknowledgement stays pending. Their declines: ${STEPWISE_SITE_URL}/api/2.0/acknowledgements/` +
        `${record.releaseid}/declines?userid=${record.userid}`,
    });
  } catch (error) {
    log().error('the decline mail to the document owner failed', { releaseid: record.releaseid, error });
  }
}

/** A person's declines of a release, oldest first: their own; others' for whoever may change the document. */
export async function listDeclines(caller: Caller, releaseid: number, userid: number | undefined) {
  const release = await requireRelease(releaseid);
  const whose = userid ?? caller.userid;
  if (whose !== caller.userid) await assertManagesDocument(caller, release.doctype, release.docid);
  return (await declinesOf(releaseid, whose)).map(declineView);
}
