/**
 * Guides and their steps: every guide GET /guides?includePrivate lists (all of them for an
 * Admin), read in full with its own steps, access grants and links. Items are built by
 * shared/db/entities/guide.ts (the same builders the guide services commit), so index keys,
 * search words, authored and featured links are the ones the API reads.
 */
import { guideCreate, type GuideRecord } from '../../../../shared/db/entities/guide.ts';
import { stepCreateWrites, type StepMedia, type StepRecord } from '../../../../shared/db/entities/step.ts';
import { guideSnapshotPut } from '../../../../shared/db/entities/guide-revision.ts';
import { authoredLinkPut, categoryRefWrites, featuredLinkWrite } from '../../../../shared/db/entities/guide-link.ts';
import { searchTokenWrites } from '../../../../shared/db/search-index.ts';
import type { LabelledWrite } from '../../../../shared/db/transactions.ts';
import { guideSearchTokens } from '../../../../shared/content/guide-revisions.ts';
import { serviceAuthorOfWire } from '../../../../shared/domain/caller.ts';
import { FEATURED_FLAG } from '../../../../shared/domain/guide-rules.ts';
import type { FullGuideView, GuideSummary, StepView } from '../../../../shared/views/guide-views.ts';
import { itemsOfWrites, type CrawlContext, type ResourceCrawler } from '../crawl.ts';
import { forEachPageOrUnexposed, listOrUnexposed, wireId } from './content-source.ts';

/** What a guide's revision snapshot records about its making, which API 2.0 does not show. */
export const MIGRATED_SNAPSHOT_REASON = 'migration';

/**
 * Guide item attributes API 2.0 does not hand out (test/migrate/guides.test.ts compares the rest):
 * - version: an internal optimistic-lock counter bumped by every write; a migrated guide starts at 1.
 */
export const GUIDE_ATTRIBUTES_NOT_EXPOSED = ['version'] as const;

/**
 * Revision snapshot attributes API 2.0 does not hand out: why and by whom the revision was made
 * (reason, changed_by) and when the snapshot was taken (snapshot_date; the crawler uses the
 * guide's modified_date, which is the same instant for every revision made by an edit).
 */
export const GUIDE_SNAPSHOT_ATTRIBUTES_NOT_EXPOSED = ['reason', 'changed_by', 'snapshot_date'] as const;

/** Stored step media as the step view shows it; an empty image list is how a step without media reads. */
export function storedStepMedia(media: StepView['media']): StepMedia | null {
  if (media.type === 'image') {
    const ids = media.data.map((image) => image.id);
    return ids.length > 0 ? { type: 'image', data: ids } : null;
  }
  if (media.type === 'video') return { type: 'video', data: wireId(media.data, 'videoid') ?? 0 };
  return { type: 'embed', data: wireId(media.data, 'embedid') ?? 0 };
}

/** The stored record of one of the guide's own steps, as the step view shows it. */
export function stepRecordFromView(step: StepView): StepRecord {
  return {
    guideid: step.guideid,
    stepid: step.stepid,
    revisionid: step.revisionid,
    title: step.title,
    lines: step.lines.map((line) => ({
      lineid: line.lineid ?? 0,
      bullet: line.bullet,
      level: line.level,
      text_raw: line.text_raw,
      text_rendered: line.text_rendered,
    })),
    media: storedStepMedia(step.media),
    // The comments code adds this counter on the first comment; a step never commented has none.
    ...(step.comment_count > 0 ? { comment_count: step.comment_count } : {}),
  };
}

/** The guide's own steps (the full view puts prerequisite guides' steps first unless excluded). */
export function ownSteps(guide: FullGuideView): StepView[] {
  return guide.steps.filter((step) => step.guideid === guide.guideid).sort((a, b) => a.orderby - b.orderby);
}

export function guideRecordFromView(
  guide: FullGuideView,
  summary: Pick<GuideSummary, 'userid'> & { tags?: string[] | undefined },
  grants: { userids: number[]; teamids: number[] },
): GuideRecord {
  return {
    guideid: guide.guideid,
    langid: guide.langid,
    type: guide.type,
    category: guide.category,
    subject: guide.subject,
    title: guide.title,
    summary: guide.summary,
    introduction_raw: guide.introduction_raw,
    introduction_rendered: guide.introduction_rendered,
    conclusion_raw: guide.conclusion_raw,
    conclusion_rendered: guide.conclusion_rendered,
    difficulty: guide.difficulty,
    time_required_min: guide.time_required_min,
    time_required_max: guide.time_required_max,
    parts: guide.parts,
    tools: guide.tools,
    documents: guide.documents.map((document) => document.documentid),
    prerequisites: guide.prerequisites.map((prerequisite) => prerequisite.guideid),
    flags: guide.flags.map((flag) => flag.flagid),
    public: guide.public,
    userid: guide.author?.userid ?? summary.userid,
    ...serviceAuthorOfWire(guide.author),
    image: guide.image ? guide.image.id : null,
    created_date: guide.created_date,
    published_date: guide.published_date,
    modified_date: guide.modified_date,
    revisionid: guide.revisionid,
    version: 1,
    steps: ownSteps(guide).map((step) => ({ stepid: step.stepid, revisionid: step.revisionid })),
    grant_userids: grants.userids,
    grant_teamids: grants.teamids,
    search_tokens: guideSearchTokens(guide.title),
    // The guide item's copy of its tags (decision 283), from the summary where the source lists them;
    // the tags crawler writes the links they are kept from.
    ...(summary.tags && summary.tags.length > 0 ? { tags: [...summary.tags] } : {}),
  };
}

/** Every write a guide's current state implies: the guide, its snapshot, links, search words, steps. */
export function guideWrites(guide: GuideRecord, steps: StepRecord[]): LabelledWrite[] {
  return [
    guideCreate(guide),
    guideSnapshotPut(guide, { reason: MIGRATED_SNAPSHOT_REASON, changed_by: null, date: guide.modified_date }),
    // A token's guide has no author link (decision 244): USER#0 is no account.
    ...(guide.service_author ? [] : [authoredLinkPut(guide)]),
    ...(guide.flags.includes(FEATURED_FLAG) ? [featuredLinkWrite(guide, true)] : []),
    ...categoryRefWrites(null, guide),
    ...searchTokenWrites('GUIDE', guide.guideid, [], guide.search_tokens),
    ...steps.flatMap(stepCreateWrites),
  ];
}

async function grantIds(context: CrawlContext, guideid: number): Promise<{ userids: number[]; teamids: number[] }> {
  const users = await listOrUnexposed<{ userid: number }>(context, 'guide user grants', `/guides/${guideid}/users`);
  const teams = await listOrUnexposed<{ teamid: number }>(context, 'guide team grants', `/guides/${guideid}/teams`);
  return { userids: (users ?? []).map((user) => user.userid), teamids: (teams ?? []).map((team) => team.teamid) };
}

async function crawlGuide(context: CrawlContext, summary: GuideSummary): Promise<void> {
  const guide = await context.api.find<FullGuideView>(`/guides/${summary.guideid}`, { excludePrerequisiteSteps: 1 });
  if (!guide) {
    context.report.skipped(`guide ${summary.guideid}`, 'listed, but GET /guides/{guideid} refused or lost it');
    return;
  }
  const steps = ownSteps(guide).map(stepRecordFromView);
  for (const step of steps) {
    context.sink.idSeen('step', step.stepid);
    context.sink.idSeen('revision', step.revisionid);
  }
  const record = guideRecordFromView(guide, summary, await grantIds(context, guide.guideid));
  await context.sink.items(itemsOfWrites(guideWrites(record, steps)));
}

export const guidesCrawler: ResourceCrawler = {
  name: 'guides',
  after: ['users'],
  async crawl(context) {
    context.report.unexposed(
      'guide and step revisions older than the current one',
      'API 2.0 reads a guide at its current revision only; releases of older revisions name snapshots it cannot show',
    );
    context.report.unexposed('who made each guide revision, and why', 'revision snapshots are not listed by API 2.0');
    await forEachPageOrUnexposed<GuideSummary>(
      context,
      'guides',
      '/guides',
      async (page) => {
        for (const summary of page) {
          context.known.add('guide', summary.guideid);
          context.sink.idSeen('guide', summary.guideid);
          context.sink.idSeen('revision', summary.revisionid);
          const unit = `guide:${summary.guideid}`;
          if (context.isDone(unit)) continue;
          await crawlGuide(context, summary);
          await context.completed(unit);
        }
      },
      { includePrivate: 1, order: 'ASC' },
    );
  },
};
