import type { ResourceCrawler } from '../crawl.ts';
import { commentsCrawler } from './comments.ts';
import { guidesCrawler } from './guides.ts';
import { marksCrawler } from './marks.ts';
import { mediaCrawler } from './media.ts';
import { releasesCrawler } from './releases.ts';
import { tagsCrawler } from './tags.ts';
import { teamsCrawler } from './teams.ts';
import { usersCrawler } from './users.ts';
import { viewHistoryCrawler } from './view-history.ts';
import { wikisCrawler } from './wikis.ts';

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
];
