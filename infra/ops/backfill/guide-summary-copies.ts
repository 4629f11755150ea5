/**
 * Fills the guide item's copies that guide summaries read (decision 283) for guides tagged or
 * given a quiz before they existed: `tags` from the guide's `TAGGED#GUIDE#<id>` links (the
 * source), `attached_quiz` from the quiz attachment in force (the newest quiz link). A guide whose
 * copies already match is not written; one that is written gets them on condition of the version
 * read (a guide changed meanwhile is read again). Idempotent, in guideid order: an interrupted run
 * is run again, or resumed after the last guideid it printed.
 */
import {
  type GuideSummaryCopies,
  getGuide,
  guideSummaryCopyChunks,
  setGuideSummaryCopies,
} from '../../../shared/db/entities/guide.ts';
import { currentQuizLink } from '../../../shared/db/entities/quiz.ts';
import { listDocumentTags } from '../../../shared/db/entities/tag.ts';
import { retryOnLostRace } from '../../../shared/db/retry.ts';

/** More tags than any guide carries: read in one page. */
const TAGS_READ = 1000;

export interface SummaryCopiesTotals {
  guides: number;
  tagsWritten: number;
  quizzesWritten: number;
  lastGuideid: number;
}

/** The copies `guide` lacks, or undefined when it has them all. */
async function missingCopies(
  guide: GuideSummaryCopies,
): Promise<Parameters<typeof setGuideSummaryCopies>[2] | undefined> {
  const [linked, link] = await Promise.all([
    listDocumentTags({ docType: 'GUIDE', docid: guide.guideid }, { limit: TAGS_READ, offset: 0 }),
    guide.attached_quiz ? undefined : currentQuizLink('guide', guide.guideid),
  ]);
  const copies: Parameters<typeof setGuideSummaryCopies>[2] = {};
  const kept = (guide.tags ?? []).filter((tag) => linked.includes(tag));
  const tags = [...kept, ...linked.filter((tag) => !kept.includes(tag))];
  if (tags.length !== (guide.tags ?? []).length || tags.some((tag, index) => guide.tags?.[index] !== tag))
    copies.tags = tags;
  if (link) copies.attached_quiz = { quizid: link.quizid, quiz_revisionid: link.quiz_revisionid };
  return copies.tags || copies.attached_quiz ? copies : undefined;
}

export async function backfillGuideSummaryCopies(
  options: { afterGuideid?: number; onProgress?: (totals: SummaryCopiesTotals) => void } = {},
): Promise<SummaryCopiesTotals> {
  const totals: SummaryCopiesTotals = {
    guides: 0,
    tagsWritten: 0,
    quizzesWritten: 0,
    lastGuideid: options.afterGuideid ?? 0,
  };
  for await (const guides of guideSummaryCopyChunks(options.afterGuideid)) {
    for (const listed of guides) {
      const written = await retryOnLostRace(async (attempt) => {
        // A retry reads the guide again: it changed (or went) since the listing or the last try.
        const guide = attempt === 0 ? listed : await getGuide(listed.guideid, { consistent: true });
        if (!guide) return undefined;
        const copies = await missingCopies(guide);
        if (copies) await setGuideSummaryCopies(guide.guideid, guide.version, copies);
        return copies;
      });
      if (written?.tags) totals.tagsWritten += 1;
      if (written?.attached_quiz) totals.quizzesWritten += 1;
      totals.guides += 1;
      totals.lastGuideid = listed.guideid;
    }
    options.onProgress?.(totals);
  }
  return totals;
}
