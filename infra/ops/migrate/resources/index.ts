import type { ResourceCrawler } from '../crawl.ts';
import { usersCrawler } from './users.ts';

export const resourceCrawlers: ResourceCrawler[] = [usersCrawler];
