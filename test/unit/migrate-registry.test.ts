/**
 * The crawlers' registry: every crawler is registered once, under a stable unique name,
 * and each crawler it must run after is registered too (the runner orders by `after`).
 */
import { describe, expect, it } from 'vitest';
import { resourceCrawlers } from '../../infra/ops/migrate/resources/index.ts';

const EVERY_CRAWLER = [
  'users',
  'teams',
  'wikis',
  'guides',
  'media',
  'releases',
  'marks',
  'comments',
  'tags',
  'view-history',
  'courses',
  'assignments',
  'quizzes',
  'step-forms',
  'work-log',
  'periodic-review',
  'approvals',
  'glossary',
  'webhooks',
];

describe('resource crawlers', () => {
  it('are all registered, each name once', () => {
    const names = resourceCrawlers.map((crawler) => crawler.name);
    expect(names).toHaveLength(EVERY_CRAWLER.length);
    for (const name of EVERY_CRAWLER) expect(names.filter((registered) => registered === name)).toEqual([name]);
  });

  it('run after crawlers that are registered, and never after themselves', () => {
    const names = new Set(resourceCrawlers.map((crawler) => crawler.name));
    for (const crawler of resourceCrawlers) {
      for (const earlier of crawler.after ?? []) {
        expect(names.has(earlier), `${crawler.name} after ${earlier}`).toBe(true);
        expect(earlier).not.toBe(crawler.name);
      }
    }
  });
});
