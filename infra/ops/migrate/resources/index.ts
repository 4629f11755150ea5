/**
 * Every resource crawler the migration runs, in one list (the runner orders them by `after`).
 * Add a crawler by importing it and appending it to the list.
 */
import type { ResourceCrawler } from '../crawl.ts';
import { approvalsCrawler } from './approvals.ts';
import { assignmentsCrawler } from './assignments.ts';
import { commentsCrawler } from './comments.ts';
import { coursesCrawler } from './courses.ts';
import { glossaryCrawler } from './glossary.ts';
import { guidesCrawler } from './guides.ts';
import { marksCrawler } from './marks.ts';
import { mediaCrawler } from './media.ts';
import { periodicReviewCrawler } from './periodic-review.ts';
import { quizzesCrawler } from './quizzes.ts';
import { releasesCrawler } from './releases.ts';
import { stepFormsCrawler } from './step-forms.ts';
import { tagsCrawler } from './tags.ts';
import { teamsCrawler } from './teams.ts';
import { usersCrawler } from './users.ts';
import { viewHistoryCrawler } from './view-history.ts';
import { webhooksCrawler } from './webhooks.ts';
import { wikisCrawler } from './wikis.ts';
import { workLogCrawler } from './work-log.ts';

export const resourceCrawlers: ResourceCrawler[] = [
  usersCrawler,
  teamsCrawler,
  wikisCrawler,
  guidesCrawler,
  mediaCrawler,
  releasesCrawler,
  marksCrawler,
  commentsCrawler,
  tagsCrawler,
  viewHistoryCrawler,
  coursesCrawler,
  assignmentsCrawler,
  quizzesCrawler,
  stepFormsCrawler,
  workLogCrawler,
  periodicReviewCrawler,
  approvalsCrawler,
  glossaryCrawler,
  webhooksCrawler,
];
