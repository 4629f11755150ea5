/**
 * Every resource crawler the migration runs, in one list (the runner orders them by `after`).
 * Add a crawler by importing it and appending it to the list.
 */
import type { ResourceCrawler } from '../crawl.ts';
import { badgesCrawler } from './badges.ts';

export const resourceCrawlers: ResourceCrawler[] = [badgesCrawler];
