/**
 * The full page object as every wikis read and write answers it: the page with its author,
 * ancestors and child titles. Its own file so the wiki and category services both use it.
 */
import { siteUrl } from '../../shared/config.ts';
import { hasRole, type Caller } from '../../shared/domain/caller.ts';
import { HIERARCHICAL_NAMESPACES, MAX_HIERARCHY_DEPTH } from '../../shared/domain/wiki-namespaces.ts';
import { getUser } from '../../shared/db/entities/user.ts';
import { getWiki, listChildren, type WikiRecord } from '../../shared/db/entities/wiki.ts';
import { imageGuidsOf } from '../../shared/media/wiki-image-guids.ts';
import { wikiView } from '../../shared/views/wiki-views.ts';

/** Children titles shown inside a page (the children endpoint pages through all of them). */
export const CHILDREN_IN_PAGE = 200;

function canEdit(caller: Caller | null): boolean {
  return caller !== null && hasRole(caller, 'Author');
}

/** Parents from the page's parent up to the root (bounded: moves refuse cycles and depth). */
export async function ancestorsOf(wiki: WikiRecord): Promise<WikiRecord[]> {
  const chain: WikiRecord[] = [];
  let next = wiki.parent_wikiid;
  while (next && chain.length <= MAX_HIERARCHY_DEPTH) {
    const parent = await getWiki(next);
    if (!parent) break;
    chain.push(parent);
    next = parent.parent_wikiid;
  }
  return chain;
}

/** The full page as the API shows it. */
export async function pageView(wiki: WikiRecord, caller: Caller | null, options: { hideRevisionid?: boolean } = {}) {
  const hierarchical = HIERARCHICAL_NAMESPACES.includes(wiki.namespace);
  const [author, ancestors, children, imageGuids] = await Promise.all([
    getUser(wiki.author_userid),
    hierarchical ? ancestorsOf(wiki) : Promise.resolve([]),
    hierarchical && wiki.child_count > 0
      ? listChildren(wiki.wikiid, { limit: CHILDREN_IN_PAGE, offset: 0 })
      : Promise.resolve([]),
    imageGuidsOf([wiki.contents_raw]),
  ]);
  return wikiView(wiki, {
    siteUrl: siteUrl(),
    author,
    canEdit: canEdit(caller),
    parent: ancestors[0] ?? null,
    ancestors: [...ancestors].reverse(),
    children: children.map((child) => child.title),
    hideRevisionid: options.hideRevisionid,
    imageGuids,
  });
}
