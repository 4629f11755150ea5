/**
 * The glossary crawler: on a second, short-lived stack with English and German, the crawled
 * entries and term claims equal the stored items attribute by attribute (minus
 * GLOSSARY_UNEXPOSED); the shared one-language stack refuses the glossary, which is reported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAt, loginAdmin } from '../support/api.ts';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';
import { glossaryCrawler, GLOSSARY_UNEXPOSED } from '../../infra/ops/migrate/resources/glossary.ts';
import { crawledAndStored, httpSource, runCrawler, type CrawlRun } from './support/crawl-harness.ts';

describe('glossary crawler', () => {
  let stack: RunningStack;
  let saved: Array<{ entryid: number }>;
  let run: CrawlRun;

  beforeAll(async () => {
    stack = await startStackProcess({
      STEPWISE_LANGUAGES: 'en,de',
      STEPWISE_ADMIN_EMAIL: 'admin@example.com',
      STEPWISE_ADMIN_PASSWORD: 'stepwise-admin',
    });
    const login = await apiAt(stack.url, 'POST', '/user/token', {
      body: { email: 'admin@example.com', password: 'stepwise-admin' },
    });
    const admin = login.body.authToken as string;
    const put = await apiAt(stack.url, 'PUT', '/translation_glossary/entries', {
      token: admin,
      body: {
        entries: [
          {
            term: 'Torque wrench',
            translations: [{ langid: 'de', translation: 'Drehmomentschlüssel' }],
            notes: 'Tool',
          },
          { term: 'bearing', translations: [{ langid: 'de', translation: 'Lager' }] },
        ],
      },
    });
    if (put.status !== 200) throw new Error(`glossary: ${put.status} ${put.text}`);
    saved = put.body.saved;
    run = await runCrawler(glossaryCrawler, httpSource(admin, { baseUrl: stack.url }));
  }, 90_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('carries every entry and its term claim as stored', async () => {
    const { crawled, stored } = await crawledAndStored(
      run,
      () => true,
      { GlossaryEntry: Object.keys(GLOSSARY_UNEXPOSED.GlossaryEntry) },
      stack.ddbEndpoint,
    );
    expect(crawled.filter((item) => item.entity === 'GlossaryEntry')).toHaveLength(2);
    expect(crawled.filter((item) => item.entity === 'Unique')).toHaveLength(2);
    expect(crawled).toEqual(stored);
    expect(run.ids.get('glossary')).toBe(Math.max(...saved.map((entry) => entry.entryid)));
    expect(run.completed).toEqual(['glossary']);
  });

  it('reports a one-language source, which refuses the glossary, as unexposed', async () => {
    const refused = await runCrawler(glossaryCrawler, httpSource(await loginAdmin()));
    expect(refused.items.size).toBe(0);
    expect(refused.unexposed).toEqual([expect.objectContaining({ what: 'translation glossary' })]);
  });
});
