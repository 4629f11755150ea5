/**
 * Wiki pages of the namespaces POST /wikis creates (CATEGORY, WIKI, INFO, ITEM; courses are the
 * training crawlers'): every page GET /wikis/{namespace} lists, read in full with its current
 * revision (GET …/revisions) and, for categories, its identification text. Items are built by
 * wikiCreateWrites (shared/db/entities/wiki.ts): the page, its title claim and the snapshot of
 * its current revision; the child count, which the builder leaves to an Update, comes from the
 * children the page view lists.
 */
import { wikiCreateWrites, type WikiRecord } from '../../../../shared/db/entities/wiki.ts';
import { serviceAuthorOfWire } from '../../../../shared/domain/caller.ts';
import { CREATABLE_NAMESPACES, type WikiNamespace } from '../../../../shared/domain/wiki-namespaces.ts';
import type {
  WikiIdentification,
  WikiListItem,
  WikiRevisionView,
  WikiView,
} from '../../../../shared/views/wiki-views.ts';
import { itemsOfWrites, type CrawlContext, type ResourceCrawler } from '../crawl.ts';
import { forEachPageOrUnexposed, listOrUnexposed } from './content-source.ts';

/** The namespaces this crawler carries (COURSE pages come with their courses). */
export const CRAWLED_WIKI_NAMESPACES: readonly WikiNamespace[] = CREATABLE_NAMESPACES;

export function wikiRecordFromView(
  view: WikiView,
  listed: Pick<WikiListItem, 'text'>,
  current: WikiRevisionView,
  identification: string,
): WikiRecord {
  return {
    wikiid: view.wikiid,
    namespace: view.namespace,
    title: view.title,
    display_title: view.display_title,
    langid: view.langid,
    revisionid: current.revisionid,
    contents_raw: view.contents_raw,
    excerpt: listed.text,
    description: view.description,
    identification_raw: identification,
    image: view.image,
    flags: view.flags,
    table_of_contents: view.table_of_contents,
    author_userid: view.author?.userid ?? current.userid,
    ...serviceAuthorOfWire(view.author),
    modified_by: current.userid,
    parent_wikiid: view.parent?.wikiid ?? null,
    child_count: view.children?.length ?? 0,
    created_date: view.created_date,
    modified_date: view.modified_date,
  };
}

/** The snapshot of the current revision records its own date and whether it restored an earlier one. */
function withRevisionFacts(writes: ReturnType<typeof wikiCreateWrites>, current: WikiRevisionView) {
  for (const write of writes) {
    const item = write.item.Put?.Item;
    if (item?.entity === 'WikiRevision')
      Object.assign(item, { date: current.date, reverted_from: current.reverted_from });
  }
  return writes;
}

async function crawlPage(context: CrawlContext, namespace: WikiNamespace, listed: WikiListItem): Promise<void> {
  const path = `/wikis/${namespace}/${encodeURIComponent(listed.title)}`;
  const view = await context.api.find<WikiView>(path);
  const revisions = await listOrUnexposed<WikiRevisionView>(context, 'wiki revisions', `${path}/revisions`);
  const current = revisions?.find((revision) => revision.current);
  if (!view || !current) {
    context.report.skipped(`wiki ${listed.wikiid}`, 'the page or its current revision was not readable');
    return;
  }
  for (const revision of revisions ?? []) context.sink.idSeen('revision', revision.revisionid);
  if ((revisions ?? []).length > 1) {
    context.report.unexposed(
      'contents of wiki revisions before the current one',
      'GET …/revisions lists them, but API 2.0 reads a page at its current revision only',
    );
  }
  const identification =
    namespace === 'CATEGORY'
      ? ((await context.api.find<WikiIdentification>(`${path}/identification`))?.identification_raw ?? '')
      : '';
  const wiki = wikiRecordFromView(view, listed, current, identification);
  await context.sink.items(itemsOfWrites(withRevisionFacts(wikiCreateWrites(wiki), current)));
}

export const wikisCrawler: ResourceCrawler = {
  name: 'wikis',
  after: ['users'],
  async crawl(context) {
    for (const namespace of CRAWLED_WIKI_NAMESPACES) {
      await forEachPageOrUnexposed<WikiListItem>(
        context,
        `${namespace} wiki pages`,
        `/wikis/${namespace}`,
        async (page) => {
          for (const listed of page) {
            context.known.add('wiki', listed.wikiid);
            context.sink.idSeen('wiki', listed.wikiid);
            const unit = `wiki:${listed.wikiid}`;
            if (context.isDone(unit)) continue;
            await crawlPage(context, namespace, listed);
            await context.completed(unit);
          }
        },
      );
    }
  },
};
