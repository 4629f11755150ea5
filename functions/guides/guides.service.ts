/**
 * Guide use cases: lists, the full guide, create, edit, publish, delete. Access rules live in
 * shared/content/guide-access.ts; every change goes through changeGuide (one conditional
 * transaction per revision, 409 with the current guide when the client's revisionid is stale).
 */
import { config } from '../../shared/config.ts';
import { ForbiddenError, missingRevisionid, ValidationError } from '../../shared/domain/errors.ts';
import { assertKnownFlags, canonicalGuideType, defaultGuideTitle } from '../../shared/domain/guide-rules.ts';
import { isAdmin, serviceAuthorFields, type Caller } from '../../shared/domain/caller.ts';
import { log } from '../../shared/observability/logger.ts';
import { nextId } from '../../shared/db/counters.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { queryPage, type PageQuery } from '../../shared/db/paging.ts';
import { nextRevisionId } from '../../shared/db/revisions.ts';
import {
  allGuidesCollection,
  emptyGuide,
  guideFromItem,
  publicGuidesCollection,
  type GuideRecord,
} from '../../shared/db/entities/guide.ts';
import { featuredGuidesCollection, linkedGuideid } from '../../shared/db/entities/guide-link.ts';
import { recordView } from '../../shared/db/entities/view-history.ts';
import { assertCanEditGuide, assertCanViewGuide, canViewGuideNow } from '../../shared/content/guide-access.ts';
import { stillMayEdit } from './edit-permission.ts';
import { changeGuide, deleteGuide, guideSearchTokens, insertGuide } from '../../shared/content/guide-revisions.ts';
import {
  fullGuide,
  guideSummaries,
  guidesForList,
  listedGuideSummaries,
} from '../../shared/read-models/guide-pages.ts';
import { selectedPage } from '../../shared/content/visible-page.ts';
import {
  assertCategoryExists,
  assertPrerequisites,
  assertUsableMedia,
  checkIntroduction,
  recordMediaUse,
  blockImageGuids,
  renderBlock,
  storedItems,
} from './guide-content.ts';
import { assertNamedImagesUsable } from '../../shared/media/wiki-image-guids.ts';
import type { CreateGuideInput, GuideInput, GuideListQuery } from './guides.schemas.ts';
import type { Page } from '../../shared/db/paging.ts';

/** The `?revisionid=` of a write, required once the resource (at revision `current`) is known to exist. */
export function requiredRevision(revisionid: number | undefined, current: number): number {
  if (revisionid === undefined) throw missingRevisionid(current);
  return revisionid;
}

export const guideConflictView = (caller: Caller) => (current: GuideRecord) => fullGuide(caller, current);

/** Legacy list of guide summaries, by guideid: public guides, or every guide the caller can read. */
export async function list(caller: Caller | null, query: GuideListQuery) {
  const descending = query.order === 'DESC';
  const everyVisible = query.includePrivate && caller !== null;
  const matches = (guide: GuideRecord) =>
    (everyVisible ? canViewGuideNow(caller, guide) : guide.public) &&
    (query.filter === undefined || guide.type.toLowerCase() === query.filter.toLowerCase()) &&
    (query.modifiedSince === undefined || guide.modified_date >= query.modifiedSince);

  if (query.guideids) {
    // Exactly the guides asked for (the first 50 ids), in guideid order; no paging.
    const listed = (await guidesForList(query.guideids.slice(0, 50))).filter(({ guide }) => matches(guide));
    listed.sort((a, b) => (descending ? b.guide.guideid - a.guide.guideid : a.guide.guideid - b.guide.guideid));
    return listedGuideSummaries(listed);
  }
  const collection: PageQuery = { ...(everyVisible ? allGuidesCollection : publicGuidesCollection), descending };
  const needsSelection =
    query.filter !== undefined || query.modifiedSince !== undefined || (everyVisible && !isAdmin(caller));
  const guides = needsSelection
    ? await selectedPage(collection, query, async (items) => items.map(guideFromItem).filter(matches))
    : (await queryPage(collection, query)).map(guideFromItem);
  return guideSummaries(guides);
}

/** Guides flagged GUIDE_STARRED that the caller can read, by guideid. */
export async function featured(caller: Caller | null, page: Page) {
  const listed = await selectedPage(featuredGuidesCollection, page, async (items) =>
    (await guidesForList(items.map(linkedGuideid))).filter(({ guide }) => canViewGuideNow(caller, guide)),
  );
  return listedGuideSummaries(listed);
}

/** The full guide; a signed-in reader's view is recorded in their history at the same time. */
export async function read(caller: Caller | null, guideid: number, options: { excludePrerequisiteSteps: boolean }) {
  const guide = await assertCanViewGuide(caller, guideid);
  const view = fullGuide(caller, guide, { prerequisiteSteps: !options.excludePrerequisiteSteps });
  const recorded = caller
    ? recordView({
        userid: caller.userid,
        username: caller.username,
        doc_type: 'GUIDE',
        docid: guideid,
        date: nowSeconds(),
      }).catch((error: Error) => log().warn('Could not record a guide view', { error, guideid }))
    : undefined;
  const [result] = await Promise.all([view, recorded]);
  return result;
}

/** The checks a create or edit needs before anything is written (422/403); `current`: the guide edited. */
async function checkInput(caller: Caller, current: GuideRecord | undefined, input: GuideInput): Promise<void> {
  const guideid = current?.guideid;
  if (input.flags !== undefined) {
    if (!isAdmin(caller)) throw new ForbiddenError('Only Admins set guide flags');
    assertKnownFlags(input.flags);
  }
  // Stored in the site's spelling whatever the letter case sent.
  if (input.type !== undefined) input.type = canonicalGuideType(input.type, config().STEPWISE_GUIDE_TYPES);
  if (input.langid !== undefined && !config().STEPWISE_LANGUAGES.includes(input.langid)) {
    throw ValidationError.field(
      'langid',
      'invalid_value',
      `langid must be one of ${config().STEPWISE_LANGUAGES.join(', ')}`,
    );
  }
  checkIntroduction(input.introduction);
  await assertNamedImagesUsable(caller, 'introduction', [input.introduction], [current?.introduction_raw]);
  await assertNamedImagesUsable(caller, 'conclusion', [input.conclusion], [current?.conclusion_raw]);
  if (input.category !== undefined) await assertCategoryExists(input.category);
  if (input.prerequisites !== undefined) await assertPrerequisites(caller, guideid, input.prerequisites);
  if (typeof input.image === 'number')
    await assertUsableMedia(caller, 'image', 'GuideImage', [input.image], current?.image ? [current.image] : []);
  if (input.documents !== undefined) {
    if (new Set(input.documents).size !== input.documents.length)
      throw ValidationError.field('documents', 'duplicate', 'A document is listed twice');
    await assertUsableMedia(caller, 'documents', 'Document', input.documents, current?.documents ?? []);
  }
}

/** The media a guide write attached (its image and documents), for GET /media/* access. */
const attachedMedia = (input: GuideInput): number[] => [
  ...(typeof input.image === 'number' ? [input.image] : []),
  ...(input.documents ?? []),
];

/** The guide with the input's fields applied (rendering what is written in wiki syntax). */
function applyInput(
  guide: GuideRecord,
  input: GuideInput,
  now: number,
  imageGuids?: ReadonlyMap<number, string>,
): GuideRecord {
  const next: GuideRecord = { ...guide };
  for (const field of [
    'category',
    'type',
    'subject',
    'title',
    'summary',
    'difficulty',
    'time_required_min',
    'time_required_max',
    'documents',
    'prerequisites',
    'flags',
    'langid',
    'image',
  ] as const) {
    if (input[field] !== undefined) (next as unknown as Record<string, unknown>)[field] = input[field];
  }
  if (input.introduction !== undefined)
    Object.assign(next, {
      introduction_raw: input.introduction,
      introduction_rendered: renderBlock(input.introduction, imageGuids),
    });
  if (input.conclusion !== undefined)
    Object.assign(next, {
      conclusion_raw: input.conclusion,
      conclusion_rendered: renderBlock(input.conclusion, imageGuids),
    });
  next.parts = storedItems(input.parts, 'part') ?? next.parts;
  next.tools = storedItems(input.tools, 'tool') ?? next.tools;
  if (input.public !== undefined) {
    next.public = input.public;
    if (input.public && next.published_date === null) next.published_date = now;
  }
  if (next.time_required_min > next.time_required_max && next.time_required_max > 0) {
    throw ValidationError.field(
      'time_required_max',
      'invalid_range',
      'time_required_max must not be less than time_required_min',
    );
  }
  return next;
}

export async function create(caller: Caller, input: CreateGuideInput) {
  await checkInput(caller, undefined, input);
  const now = nowSeconds();
  const empty: GuideRecord = {
    ...emptyGuide(
      {
        guideid: await nextId('guide'),
        langid: config().STEPWISE_LANGUAGES[0] ?? 'en',
        type: input.type,
        category: input.category,
        userid: caller.userid,
        revisionid: await nextRevisionId(),
      },
      now,
    ),
    ...serviceAuthorFields(caller),
  };
  const guide = applyInput(empty, input, now, await blockImageGuids(input.introduction, input.conclusion));
  if (!guide.title.trim()) guide.title = defaultGuideTitle(guide.type, guide.category, guide.subject);
  guide.search_tokens = guideSearchTokens(guide.title);
  await insertGuide(guide, caller.userid);
  await recordMediaUse(guide.guideid, attachedMedia(input));
  return fullGuide(caller, guide);
}

export async function patch(caller: Caller, guideid: number, revisionid: number | undefined, input: GuideInput) {
  const current = await assertCanEditGuide(caller, guideid);
  const expectedRevision = requiredRevision(revisionid, current.revisionid);
  await checkInput(caller, current, input);
  const imageGuids = await blockImageGuids(input.introduction, input.conclusion);
  const guide = await changeGuide(
    guideid,
    { expectedRevision, reason: 'guide.edit', changedBy: caller.userid, conflictView: guideConflictView(caller) },
    (current) => {
      stillMayEdit(caller, current);
      return { guide: applyInput(current, input, nowSeconds(), imageGuids) };
    },
  );
  await recordMediaUse(guideid, attachedMedia(input));
  return fullGuide(caller, guide);
}

export async function setPublic(caller: Caller, guideid: number, revisionid: number | undefined, isPublic: boolean) {
  const before = await assertCanEditGuide(caller, guideid);
  const expectedRevision = requiredRevision(revisionid, before.revisionid);
  const guide = await changeGuide(
    guideid,
    {
      expectedRevision,
      reason: isPublic ? 'guide.publish' : 'guide.unpublish',
      changedBy: caller.userid,
      conflictView: guideConflictView(caller),
    },
    (current) => {
      stillMayEdit(caller, current);
      return { guide: applyInput(current, { public: isPublic }, nowSeconds()) };
    },
  );
  return fullGuide(caller, guide);
}

export async function remove(caller: Caller, guideid: number, revisionid: number | undefined): Promise<void> {
  const before = await assertCanEditGuide(caller, guideid);
  await deleteGuide(guideid, {
    expectedRevision: requiredRevision(revisionid, before.revisionid),
    conflictView: guideConflictView(caller),
  });
}
