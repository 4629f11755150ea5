import type { ResourceCrawler } from '../crawl.ts';
import { guidesCrawler } from './guides.ts';
import { mediaCrawler } from './media.ts';
import { usersCrawler } from './users.ts';

export const resourceCrawlers: ResourceCrawler[] = [usersCrawler, guidesCrawler, mediaCrawler];
