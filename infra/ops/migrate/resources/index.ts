import type { ResourceCrawler } from '../crawl.ts';
import { approvalsCrawler } from './approvals.ts';
import { assignmentsCrawler } from './assignments.ts';
import { coursesCrawler } from './courses.ts';
import { glossaryCrawler } from './glossary.ts';
import { periodicReviewCrawler } from './periodic-review.ts';
import { quizzesCrawler } from './quizzes.ts';
import { stepFormsCrawler } from './step-forms.ts';
import { webhooksCrawler } from './webhooks.ts';
import { workLogCrawler } from './work-log.ts';

export const resourceCrawlers: ResourceCrawler[] = [
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
