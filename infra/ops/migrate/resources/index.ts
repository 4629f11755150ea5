import type { ResourceCrawler } from '../crawl.ts';
import { guidesCrawler } from './guides.ts';
import { usersCrawler } from './users.ts';

export const resourceCrawlers: ResourceCrawler[] = [usersCrawler, guidesCrawler];
