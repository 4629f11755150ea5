/**
 * Releases of guides and wikis: which revision is released, as version MAJOR.MINOR. A major
 * release moves MAJOR on and resets MINOR (1.3 → 2.0); a minor one moves MINOR (2.0 → 2.1).
 * The version comes from the document's version head, moved in the same transaction as the
 * release is written, so concurrent releases never share a version and a version is never reused.
 * Who releases a guide: whoever may edit it. Wikis: Authors and Admins.
 * A document governed by an approval process (docs/compliance.md) is not released at once: the
 * release is written `pending_approval` together with an approval request for its revision, and
 * takes its version when the request is approved (shared/content/release-approval.ts).
 */
import { config } from '../../shared/config.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../shared/domain/errors.ts';
import { releaseView, type ReleaseView } from '../../shared/views/release-views.ts';
import {
  type DuplicateReleasesInput,
  type GuideReleaseInput,
  MAX_DUPLICATE_TARGETS,
  type ReleaseNotesInput,
  type WikiReleaseInput,
} from './releases.schemas.ts';
import { serviceAuthorFields, type Caller } from '../../shared/domain/caller.ts';
import { nextId } from '../../shared/db/counters.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { labelsIn, retryOnLostRace } from '../../shared/db/retry.ts';
import type { LabelledWrite } from '../../shared/db/transactions.ts';
import { getGuides, type GuideRecord } from '../../shared/db/entities/guide.ts';
import { getGuideSnapshot } from '../../shared/db/entities/guide-revision.ts';
import { getUsers } from '../../shared/db/entities/user.ts';
import { getWiki, getWikiRevision } from '../../shared/db/entities/wiki.ts';
import {
  allReleasesCollection,
  deleteRelease,
  getRelease,
  getVersionHead,
  insertReleases,
  listReleases,
  nextVersion,
  releaseCreateWrites,
  releaseFromItem,
  updateReleaseNotes,
  pendingReleaseWrite,
  type CurrentRelease,
  type ReleaseDoctype,
  type ReleaseRecord,
  type ReleaseType,
} from '../../shared/db/entities/release.ts';
import {
  assertCanEditGuide,
  assertCanViewGuide,
  canEditGuide,
  canViewGuideNow,
} from '../../shared/content/guide-access.ts';
import { selectedPage } from '../../shared/content/visible-page.ts';
import { refreshAfterRelease } from '../../shared/training/release-refresh.ts';
import type { Page } from '../../shared/db/paging.ts';
import { findDocument, requireDocument, type DocumentRef } from '../../shared/content/documents.ts';
import { governingProcesses } from '../../shared/content/governing-processes.ts';
import { commitApprovalRequest, draftApprovalRequest } from '../../shared/content/approval-requests.ts';
import { getApprovedRevision } from '../../shared/db/entities/approval-request.ts';

/** Each release is two writes; a transaction holds 100. */
export { MAX_DUPLICATE_TARGETS };
const MAX_ATTEMPTS = 8;

/** The wire shape of each release (their users from one BatchGet). */
async function releaseViews(releases: ReleaseRecord[]): Promise<ReleaseView[]> {
  const users = new Map(
    (await getUsers([...new Set(releases.map((release) => release.userid))])).map((user) => [user.userid, user]),
  );
  return releases.map((release) => releaseView(release, users.get(release.userid), config().STEPWISE_SITE_URL));
}

interface ReleaseDraft {
  doctype: ReleaseDoctype;
  docid: number;
  revisionid: number;
  langid: string;
  release_type: ReleaseType;
  notes: string;
  /** The request that approved this revision, for a governed document's release. */
  approval_requestid?: number;
}

/**
 * Writes releases for several documents at once (all or none), each at its document's next
 * version. A concurrent release of one of them makes the heads stale: read them again and retry.
 */
async function commitReleases(caller: Caller, drafts: ReleaseDraft[]): Promise<ReleaseRecord[]> {
  const releases = await retryOnLostRace(
    async () => {
      const date = nowSeconds();
      const heads = await Promise.all(drafts.map((draft) => getVersionHead(draft.doctype, draft.docid)));
      // Ids taken after reading the heads, so of one document's immediate releases a higher id is a higher
      // version (a release through approval takes its version later, when approved).
      const ids = await Promise.all(drafts.map(() => nextId('release')));
      const releases: CurrentRelease[] = drafts.map((draft, index) => ({
        releaseid: ids[index],
        ...draft,
        status: 'released',
        ...nextVersion(heads[index], draft.release_type),
        date,
        release_date: date,
        approval_requestid: draft.approval_requestid ?? null,
        userid: caller.userid,
        ...serviceAuthorFields(caller),
      }));
      const writes: LabelledWrite[] = releases.flatMap((release, index) => releaseCreateWrites(release, heads[index]));
      await insertReleases(writes);
      return releases;
    },
    {
      attempts: MAX_ATTEMPTS,
      raceLabels: labelsIn('version-head:'),
      message: 'Other releases of this document were being made; try again',
    },
  );
  // A new release may outdate trainees' completions (course stage strictness): refresh them.
  for (const release of releases) await refreshAfterRelease(release.doctype, release.docid);
  return releases;
}

/** The revision a guide release names: the current one, or an earlier revision of that guide. */
async function guideReleaseRevision(guide: GuideRecord, revisionid: number | undefined): Promise<number> {
  if (revisionid === undefined || revisionid === guide.revisionid) return guide.revisionid;
  if (!(await getGuideSnapshot(guide.guideid, revisionid))) {
    throw ValidationError.field('revisionid', 'not_found', `Guide ${guide.guideid} has no revision ${revisionid}`);
  }
  return revisionid;
}

/** Every guide release the caller can see (releases of guides they can read), newest first. */
export async function listAllGuideReleases(caller: Caller, page: Page) {
  const releases = await selectedPage({ ...allReleasesCollection('guide'), descending: true }, page, async (items) => {
    const found = items.map(releaseFromItem);
    const readable = new Set(
      (await getGuides(found.map((release) => release.docid)))
        .filter((guide) => canViewGuideNow(caller, guide))
        .map((guide) => guide.guideid),
    );
    return found.filter((release) => readable.has(release.docid));
  });
  return { releases: await releaseViews(releases) };
}

export async function listGuideReleases(caller: Caller | null, guideid: number) {
  await assertCanViewGuide(caller, guideid);
  return { releases: await releaseViews(await listReleases('guide', guideid)) };
}

export async function createGuideRelease(caller: Caller, input: GuideReleaseInput) {
  const guide = await assertCanEditGuide(caller, input.guideid);
  const revisionid = await guideReleaseRevision(guide, input.revisionid);
  return releaseOrAskApproval(caller, {
    doctype: 'guide',
    docid: guide.guideid,
    revisionid,
    langid: guide.langid,
    release_type: input.release_type,
    notes: input.notes ?? '',
  });
}

function documentBody(document: DocumentRef) {
  return { doctype: document.doctype, docid: document.docid, title: document.title, revisionid: document.revisionid };
}

/**
 * Releases a document at once, or, when an approval process governs it, writes the release
 * pending together with an approval request for its revision (one transaction). A revision
 * already approved (by an earlier request, e.g. POST /approvals/requests) is released at once.
 * Approval is given to a current revision only (the request is superseded by the next one), so a
 * governed release of an earlier, unapproved revision is 409. One release waits per document:
 * while a request is open for the revision, asking again is 409 with it.
 */
async function releaseOrAskApproval(caller: Caller, draft: ReleaseDraft) {
  const document = await requireDocument(draft.doctype, draft.docid);
  const [governing] = await governingProcesses(document);
  const approved = governing ? await getApprovedRevision(draft.doctype, draft.docid, draft.revisionid) : undefined;
  if (!governing || approved) {
    const [release] = await commitReleases(caller, [{ ...draft, approval_requestid: approved?.approval_requestid }]);
    return (await releaseViews([release]))[0];
  }
  if (draft.revisionid !== document.revisionid) {
    throw new ConflictError(
      `${draft.doctype === 'guide' ? 'Guide' : 'Wiki'} ${draft.docid} is released through approval process ` +
        `"${governing.process.name}", which approves the current revision only; the body is the document as it is now`,
      documentBody(document),
    );
  }
  const releaseid = await nextId('release');
  const request = await draftApprovalRequest(caller, document, governing, draft.notes, releaseid);
  const release: ReleaseRecord = {
    releaseid,
    ...draft,
    status: 'pending_approval',
    version: null,
    major: null,
    minor: null,
    date: request.created_date,
    release_date: null,
    approval_requestid: request.approval_requestid,
    userid: caller.userid,
    ...serviceAuthorFields(caller),
  };
  const outcome = await commitApprovalRequest(caller, request, [pendingReleaseWrite(release)]);
  if ('opened' in outcome) return (await releaseViews([release]))[0];
  if ('documentChanged' in outcome)
    throw new ConflictError(
      'The document changed meanwhile; the body is the document as it is now',
      documentBody(outcome.documentChanged),
    );
  if ('alreadyOpen' in outcome) {
    const open = outcome.alreadyOpen;
    const waiting = open.releaseid === null ? undefined : await getRelease(open.releaseid);
    throw new ConflictError(
      `Approval request ${open.approval_requestid} for this revision is open; a release can be asked for ` +
        `when it has ended`,
      {
        approval_request: {
          approval_requestid: open.approval_requestid,
          revisionid: open.revisionid,
          status: open.status,
          releaseid: open.releaseid,
        },
        release: waiting ? (await releaseViews([waiting]))[0] : null,
      },
    );
  }
  throw new ConflictError('Approval requests for this document kept changing; try again');
}

/** A release of a document the caller may change (guide: edit rights; wiki: the route's Author role). */
async function requireReleaseToChange(
  caller: Caller,
  releaseid: number,
  doctype: ReleaseDoctype,
): Promise<ReleaseRecord> {
  const release = await getRelease(releaseid);
  if (!release || release.doctype !== doctype)
    throw new NotFoundError(`No ${doctype} release with releaseid ${releaseid}`);
  if (doctype === 'guide') await assertCanEditGuide(caller, release.docid);
  return release;
}

export async function patchGuideRelease(caller: Caller, releaseid: number, input: ReleaseNotesInput) {
  const release = await requireReleaseToChange(caller, releaseid, 'guide');
  if (input.notes === undefined) return (await releaseViews([release]))[0];
  const updated = await updateReleaseNotes(releaseid, input.notes);
  if (!updated) throw new NotFoundError(`No guide release with releaseid ${releaseid}`);
  return (await releaseViews([updated]))[0];
}

/** A release waiting for approval is decided by its request (or ended by a new revision), not deleted. */
export async function deleteReleaseOf(caller: Caller, releaseid: number, doctype: ReleaseDoctype): Promise<void> {
  const release = await requireReleaseToChange(caller, releaseid, doctype);
  const outcome = await deleteRelease(releaseid);
  if (outcome === 'missing') throw new NotFoundError(`No ${doctype} release with releaseid ${releaseid}`);
  if (outcome === 'pending') {
    throw new ConflictError(
      `Release ${releaseid} waits for approval request ${release.approval_requestid}; its approvers decide ` +
        `it, or a new revision ends it`,
      (await releaseViews([{ ...release, status: 'pending_approval' }]))[0],
    );
  }
}

/** Guides governed by an approval process are released one by one, each through its own request. */
async function approvalRequiredProblems(guideids: number[]) {
  const governed = await Promise.all(
    guideids.map(async (guideid) => {
      const document = await findDocument('guide', guideid);
      return document ? (await governingProcesses(document)).length > 0 : false;
    }),
  );
  return guideids
    .filter((_, index) => governed[index])
    .map((guideid) => ({
      field: 'guideids',
      code: 'approval_required',
      message: `Guide ${guideid} is released through an approval process: release it with POST /guides/releases`,
    }));
}

/**
 * Applies one release to other guides: each target guide gets a release of its current revision
 * with the source release's type and notes (e.g. one change rolled out to a set of guides), all
 * in one transaction. The caller must be able to edit every target.
 */
export async function duplicateReleases(caller: Caller, input: DuplicateReleasesInput) {
  const source = await getRelease(input.releaseid);
  if (source?.doctype !== 'guide') throw new NotFoundError(`No guide release with releaseid ${input.releaseid}`);
  await assertCanViewGuide(caller, source.docid);
  const targetIds = [...new Set(input.guideids)];
  if (targetIds.length > MAX_DUPLICATE_TARGETS)
    throw ValidationError.field('guideids', 'too_many', `At most ${MAX_DUPLICATE_TARGETS} guides per request`);
  const targets = new Map((await getGuides(targetIds)).map((guide) => [guide.guideid, guide]));
  const problems = targetIds.flatMap((guideid) => {
    const guide = targets.get(guideid);
    if (!guide) return [{ field: 'guideids', code: 'not_found', message: `No guide with guideid ${guideid}` }];
    if (!canEditGuide(caller, guide))
      return [{ field: 'guideids', code: 'forbidden', message: `You may not release guide ${guideid}` }];
    return [];
  });
  problems.push(...(await approvalRequiredProblems(problems.length === 0 ? targetIds : [])));
  if (problems.length > 0) throw new ValidationError(problems.map((problem) => problem.message).join('; '), problems);
  const releases = await commitReleases(
    caller,
    targetIds.map((guideid) => {
      const guide = targets.get(guideid)!;
      return {
        doctype: 'guide' as const,
        docid: guideid,
        revisionid: guide.revisionid,
        langid: guide.langid,
        release_type: source.release_type,
        notes: input.notes ?? source.notes,
      };
    }),
  );
  return { releases: await releaseViews(releases) };
}

export async function createWikiRelease(caller: Caller, wikiid: number, input: WikiReleaseInput) {
  const wiki = await getWiki(wikiid);
  if (!wiki) throw new NotFoundError(`No wiki with wikiid ${wikiid}`);
  const revisionid = input.revisionid ?? wiki.revisionid;
  if (revisionid !== wiki.revisionid && !(await getWikiRevision(wikiid, revisionid))) {
    throw ValidationError.field('revisionid', 'not_found', `Wiki ${wikiid} has no revision ${revisionid}`);
  }
  return releaseOrAskApproval(caller, {
    doctype: 'wiki',
    docid: wikiid,
    revisionid,
    langid: wiki.langid,
    release_type: input.release_type,
    notes: input.notes ?? '',
  });
}
