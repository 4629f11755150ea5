/**
 * The wikis crawler against a live source (the test stack): pages (hierarchy and child counts
 * included), title claims and the current revision's snapshot equal what the API stored; older
 * revisions, whose contents API 2.0 does not show, are reported.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin } from '../support/api.ts';
import { createWiki, wikiPath, type CreatedWiki } from '../support/wikis.ts';
import { wikisCrawler } from '../../infra/ops/migrate/resources/wikis.ts';
import { memoryCrawl, refusing, storedItem, type MemoryCrawl } from './support/crawl-harness.ts';

const pad = (id: number) => String(id).padStart(12, '0');

let admin: string;
let parent: CreatedWiki;
let child: CreatedWiki;
let article: CreatedWiki;
let articleRevision: number;
let crawl: MemoryCrawl;

beforeAll(async () => {
  admin = await loginAdmin();
  parent = await createWiki({
    namespace: 'CATEGORY',
    title: `Printers ${Date.now()}`,
    contents: "Desktop '''printers'''.",
    identification: 'Look at the label.',
    description: 'All printers',
  });
  child = await createWiki({ namespace: 'CATEGORY', title: `Laser ${Date.now()}`, parent: parent.title });
  article = await createWiki({
    namespace: 'WIKI',
    contents: 'First words.',
    flags: ['DRAFT'],
    table_of_contents: true,
  });
  const edited = await api('PATCH', wikiPath(article), {
    token: admin,
    query: { revisionid: article.revisionid },
    body: { contents: 'Second words, longer.' },
  });
  expect(edited.status).toBe(200);
  articleRevision = edited.body.revisionid;
  crawl = memoryCrawl(admin);
  await crawl.run(wikisCrawler);
});

async function expectCrawledAsStored(pk: string, sk: string) {
  const stored = await storedItem(pk, sk);
  expect(stored, `${pk} ${sk} stored`).toBeDefined();
  expect(crawl.item(pk, sk), `${pk} ${sk} crawled`).toEqual(stored);
}

describe('wikis crawler', () => {
  it('writes every page as stored: hierarchy, child count, identification, author and current revision', async () => {
    for (const page of [parent, child, article]) await expectCrawledAsStored(`WIKI#${page.wikiid}`, 'WIKI');
    expect(crawl.item(`WIKI#${parent.wikiid}`, 'WIKI')).toMatchObject({ child_count: 1 });
    expect(crawl.item(`WIKI#${child.wikiid}`, 'WIKI')).toMatchObject({ parent_wikiid: parent.wikiid });
    expect(crawl.item(`WIKI#${article.wikiid}`, 'WIKI')).toMatchObject({ revisionid: articleRevision });
  });

  it("writes each page's title claim and its current revision's snapshot as stored", async () => {
    await expectCrawledAsStored(`UNIQUE#WIKI_TITLE#CATEGORY#${parent.title}`, 'UNIQUE');
    await expectCrawledAsStored(`UNIQUE#WIKI_TITLE#WIKI#${article.title}`, 'UNIQUE');
    await expectCrawledAsStored(`WIKI#${parent.wikiid}`, `REV#${pad(parent.revisionid)}`);
    await expectCrawledAsStored(`WIKI#${article.wikiid}`, `REV#${pad(articleRevision)}`);
  });

  it('reports the contents of earlier revisions as unexposed and moves the counters past every id', () => {
    expect(crawl.item(`WIKI#${article.wikiid}`, `REV#${pad(article.revisionid)}`)).toBeUndefined();
    expect(crawl.isUnexposed('contents of wiki revisions before the current one')).toBe(true);
    expect(crawl.ids.get('wiki')).toBeGreaterThanOrEqual(article.wikiid);
    expect(crawl.ids.get('revision')).toBeGreaterThanOrEqual(articleRevision);
  });

  it('reports a namespace the source refuses (403) as unexposed and carries the others', async () => {
    const reader = await createUser();
    const limited = memoryCrawl(reader.token);
    await limited.runWith(refusing(limited.context, ['/wikis/WIKI']), wikisCrawler);
    expect(limited.unexposedDetail('WIKI wiki pages')).toContain('403');
    expect(limited.item(`WIKI#${article.wikiid}`, 'WIKI')).toBeUndefined();
    expect(limited.item(`WIKI#${parent.wikiid}`, 'WIKI')).toBeDefined();
  });
});
