import type { ResourceCrawler } from '../crawl.ts';
import { workLogCrawler } from './work-log.ts';

export const resourceCrawlers: ResourceCrawler[] = [workLogCrawler];
