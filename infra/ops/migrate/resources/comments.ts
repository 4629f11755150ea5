/**
 * Comments with their replies: every top-level comment GET /comments lists to the migrating
 * account (replies nested), by commentid. Items are built by shared/db/entities/comment.ts; the
 * aggregates a reply would bump (the parent's reply_count and replied_date) are read from the
 * source, and a step's comment_count is on the step item the guides crawler writes.
 */
import { commentCreateWrites, type CommentRecord } from '../../../../shared/db/entities/comment.ts';
import { serviceAuthorOfWire } from '../../../../shared/domain/caller.ts';
import type { CommentReplyView, CommentView } from '../../../../shared/views/comment-views.ts';
import type { FullGuideView } from '../../../../shared/views/guide-views.ts';
import { itemsOfWrites, type CrawlContext, type ResourceCrawler } from '../crawl.ts';
import { forEachPageOrUnexposed } from './content-source.ts';
import { ownSteps } from './guides.ts';

type ShownComment = Omit<CommentReplyView, 'replies'>;

export function commentRecordFromView(
  view: ShownComment,
  guideid: number | null,
  replies: CommentReplyView[] = [],
): CommentRecord {
  return {
    commentid: view.commentid,
    locale: view.locale,
    context: view.context,
    contextid: view.contextid,
    guideid,
    parentid: view.parentid,
    author_userid: view.author?.userid ?? 0,
    ...serviceAuthorOfWire(view.author),
    title: view.title,
    text_raw: view.text_raw,
    rating: view.rating,
    date: view.date,
    modified_date: view.modified_date,
    replied_date: view.replied_date,
    status: view.status,
    reply_count: replies.length,
  };
}

/**
 * The guide of each step, read from the guides the guides crawler found; built on the first step
 * comment only (a site without step comments costs nothing).
 */
class StepGuides {
  private byStep: Promise<Map<number, number>> | undefined;

  constructor(private readonly context: CrawlContext) {}

  async guideOf(stepid: number): Promise<number | null> {
    this.byStep ??= this.load();
    return (await this.byStep).get(stepid) ?? null;
  }

  private async load(): Promise<Map<number, number>> {
    const byStep = new Map<number, number>();
    for (const guideid of this.context.known.all('guide')) {
      const guide = await this.context.api.find<FullGuideView>(`/guides/${guideid}`, { excludePrerequisiteSteps: 1 });
      for (const step of guide ? ownSteps(guide) : []) byStep.set(step.stepid, guideid);
    }
    return byStep;
  }
}

async function guideOf(view: ShownComment, steps: StepGuides): Promise<number | null> {
  if (view.context === 'guide') return view.contextid;
  if (view.context === 'step') return steps.guideOf(view.contextid);
  return null;
}

async function crawlThread(context: CrawlContext, thread: CommentView, steps: StepGuides): Promise<void> {
  const guideid = await guideOf(thread, steps);
  if (thread.context === 'step' && guideid === null) {
    context.report.skipped(`comment ${thread.commentid}`, `step ${thread.contextid} is on no guide the crawl found`);
    return;
  }
  if (!thread.author) context.report.unexposed('authors of comments whose account is gone', 'shown as author null');
  const records = [
    commentRecordFromView(thread, guideid, thread.replies),
    ...thread.replies.map((reply) => commentRecordFromView(reply, guideid)),
  ];
  for (const record of records) context.sink.idSeen('comment', record.commentid);
  await context.sink.items(itemsOfWrites(records.flatMap(commentCreateWrites)));
}

export const commentsCrawler: ResourceCrawler = {
  name: 'comments',
  after: ['guides', 'wikis'],
  async crawl(context) {
    context.report.unexposed(
      'comments on documents the migrating account cannot read',
      'GET /comments lists only what the caller may read',
    );
    const steps = new StepGuides(context);
    await forEachPageOrUnexposed<CommentView>(
      context,
      'comments',
      '/comments',
      async (page) => {
        for (const thread of page) {
          context.known.add('comment', thread.commentid);
          const unit = `comment:${thread.commentid}`;
          if (context.isDone(unit)) {
            for (const reply of thread.replies) context.sink.idSeen('comment', reply.commentid);
            context.sink.idSeen('comment', thread.commentid);
            continue;
          }
          await crawlThread(context, thread, steps);
          await context.completed(unit);
        }
      },
      { order: 'ASC' },
    );
  },
};
