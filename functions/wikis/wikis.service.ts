/**
 * Wiki use cases. Any signed-in user reads pages; Authors and Admins create, edit, revert,
 * move and delete them. Every content change is a new revision (a snapshot kept for revert
 * and releases) guarded by the revisionid it was based on; a stale one answers 409 with the
 * current page. Titles are unique within a namespace (a uniqueness item in the same
 * transaction). CATEGORY and WIKI pages form trees: a move checks every new ancestor in the
 * same transaction, so no cycle can form even under concurrent moves.
 */
import { config, siteUrl } from '../../shared/config.ts';
import {
  missingRevisionid,
  NotFoundError,
  StaleRevisionError,
  UnauthenticatedError,
  ValidationError,
} from '../../shared/domain/errors.ts';
import { serviceAuthorFields, type Caller } from '../../shared/domain/caller.ts';
import { renderWiki, sanitizeHtml } from '../../shared/domain/wiki-syntax/index.ts';
import { assertNamedImagesUsable, imageGuidsOf, previewImageGuids } from '../../shared/media/wiki-image-guids.ts';
import {
  plainExcerpt,
  wikiListItem,
  wikiRef,
  type WikiIdentification,
  type WikiRevisionView,
} from '../../shared/views/wiki-views.ts';
import type { WikiInput, WikiListQuery, WikiPatch } from './wikis.schemas.ts';
import {
  CREATABLE_NAMESPACES,
  HIERARCHICAL_NAMESPACES,
  MAX_HIERARCHY_DEPTH,
  canonicalTitle,
  parseNamespace,
  titleProblem,
  wikiUrl,
  type WikiNamespace,
} from '../../shared/domain/wiki-namespaces.ts';
import { requireNamespace, requirePage } from '../../shared/content/wiki-pages.ts';
import { noteNewDocumentRevision } from '../../shared/content/approval-supersession.ts';
import { nextId } from '../../shared/db/counters.ts';
import { nowSeconds } from '../../shared/clock.ts';
import { nextRevisionId, staleRevisionConflict } from '../../shared/db/revisions.ts';
import { TransactionConditionFailed } from '../../shared/db/transactions.ts';
import { retryOnLostRace } from '../../shared/db/retry.ts';
import { getUsers } from '../../shared/db/entities/user.ts';
import { recordView } from '../../shared/db/entities/view-history.ts';
import {
  deleteWiki,
  getWiki,
  getWikiByTitle,
  getWikiRevision,
  insertWiki,
  listChildren,
  listWikiNodes,
  listWikiRevisions,
  listWikis,
  moveWiki,
  updateWikiContent,
  wikiFromItem,
  type WikiNode,
  type WikiRecord,
} from '../../shared/db/entities/wiki.ts';
import type { Page } from '../../shared/db/paging.ts';
import { CHILDREN_IN_PAGE, ancestorsOf, categoryPage, pageView } from '../../shared/read-models/wiki-pages.ts';

/** The 409 for a write whose revisionid was stale, with the current page; undefined otherwise. */
async function staleConflict(error: unknown, caller: Caller) {
  return staleRevisionConflict(error, 'wiki', (item) => pageView(wikiFromItem(item), caller));
}

function excerptOf(contents: string): string {
  return plainExcerpt(renderWiki(contents, { siteUrl: siteUrl() }).json);
}

function validLangid(langid: string | undefined): string {
  const languages = config().STEPWISE_LANGUAGES;
  if (langid === undefined) return languages[0] ?? 'en';
  if (!languages.includes(langid))
    throw ValidationError.field('langid', 'invalid', `langid must be one of: ${languages.join(', ')}`);
  return langid;
}

function validTitle(raw: string, field = 'title'): string {
  const title = canonicalTitle(raw);
  const problem = titleProblem(title);
  if (problem) throw ValidationError.field(field, 'invalid', problem);
  return title;
}

async function requireParent(namespace: WikiNamespace, title: string): Promise<WikiRecord> {
  if (!HIERARCHICAL_NAMESPACES.includes(namespace)) {
    throw ValidationError.field(
      'parent',
      'invalid',
      `${namespace} pages have no parent; only ${HIERARCHICAL_NAMESPACES.join(' and ')} pages nest`,
    );
  }
  const parent = await getWikiByTitle(namespace, title);
  if (!parent)
    throw ValidationError.field('parent', 'not_found', `No ${namespace} page titled ${canonicalTitle(title)}`);
  return parent;
}

function titleTaken(error: unknown, namespace: string, title: string): ValidationError | undefined {
  if (error instanceof TransactionConditionFailed && error.failedLabels.includes('WIKI_TITLE')) {
    return ValidationError.field('title', 'already_exists', `A ${namespace} page titled ${title} already exists`);
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Reads

/**
 * The namespace of an anonymous read (a public site): courses are for signed-in users (GET
 * /courses is), so their pages and list answer 401 to anyone else, as a private guide does.
 */
function readableNamespace(caller: Caller | null, rawNamespace: string): WikiNamespace {
  const namespace = requireNamespace(rawNamespace);
  if (!caller && namespace === 'COURSE') throw new UnauthenticatedError('Sign in to read courses');
  return namespace;
}

export async function get(caller: Caller | null, rawNamespace: string, title: string) {
  const namespace = readableNamespace(caller, rawNamespace);
  const wiki = await requirePage(namespace, title);
  const [view] = await Promise.all([
    // A category reads as the category page (its guides); the real service shows
    // `revisionid: null` on it (wire notes §1.6).
    namespace === 'CATEGORY' ? categoryPage(caller, wiki) : pageView(wiki, caller),
    // An anonymous reader (a public site) has no history to record.
    caller
      ? recordView({
          userid: caller.userid,
          username: caller.username,
          doc_type: 'WIKI',
          docid: wiki.wikiid,
          date: nowSeconds(),
        })
      : undefined,
  ]);
  return view;
}

export async function list(caller: Caller | null, rawNamespace: string, query: WikiListQuery) {
  const namespace = readableNamespace(caller, rawNamespace);
  if (query.display === 'hierarchyOrder') return orderedNodes((await hierarchy(namespace, true)) as DisplayTree);
  if (query.display === 'hierarchy') return hierarchy(namespace, query.withDisplayTitles);
  const pages = await listWikis(namespace, query, query.modifiedSince);
  if (query.display === 'titles') return pages.map((page) => page.title);
  return pages.map((page) => wikiListItem(page, siteUrl()));
}

type TitleTree = { [title: string]: TitleTree | [] };
type DisplayTree = Array<{ title: string; display_title: string; children: DisplayTree }>;

/** A node of display=hierarchyOrder (the Android app's tree): a leaf carries no `children` key. */
export interface OrderedNode {
  title: string;
  display_title: string;
  children?: OrderedNode[];
}

function orderedNodes(tree: DisplayTree): OrderedNode[] {
  return tree.map((node) => ({
    title: node.title,
    display_title: node.display_title,
    ...(node.children.length > 0 ? { children: orderedNodes(node.children) } : {}),
  }));
}

/**
 * The whole tree of a hierarchical namespace: by default an object keyed by title whose leaves
 * are `[]` (the documented form); with withDisplayTitles, arrays of {title, display_title,
 * children}. Siblings are alphabetical; a page whose parent is missing shows at the top.
 */
async function hierarchy(namespace: WikiNamespace, withDisplayTitles: boolean): Promise<TitleTree | DisplayTree> {
  if (!HIERARCHICAL_NAMESPACES.includes(namespace)) {
    throw ValidationError.field(
      'display',
      'invalid',
      `display=hierarchy is for ${HIERARCHICAL_NAMESPACES.join(' and ')} pages`,
    );
  }
  const nodes = await listWikiNodes(namespace);
  const known = new Set(nodes.map((node) => node.wikiid));
  const childrenOf = new Map<number, WikiNode[]>();
  for (const node of nodes) {
    const parent = node.parent_wikiid && known.has(node.parent_wikiid) ? node.parent_wikiid : 0;
    childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), node]);
  }
  // Nodes arrive alphabetical (the index sort key), so each sibling list is too.
  const build = (parent: number, depth: number): DisplayTree =>
    depth > MAX_HIERARCHY_DEPTH
      ? []
      : (childrenOf.get(parent) ?? []).map((node) => ({
          title: node.title,
          display_title: node.display_title,
          children: build(node.wikiid, depth + 1),
        }));
  const tree = build(0, 0);
  if (withDisplayTitles) return tree;
  const asTitles = (branch: DisplayTree): TitleTree | [] =>
    branch.length === 0 ? [] : Object.fromEntries(branch.map((node) => [node.title, asTitles(node.children)]));
  const titles = asTitles(tree);
  return Array.isArray(titles) ? {} : titles;
}

export async function children(title: string, page: Page) {
  const parent = await requirePage('CATEGORY', title);
  const pages = parent.child_count > 0 ? await listChildren(parent.wikiid, page) : [];
  return pages.map((child) => wikiListItem(child, siteUrl()));
}

/**
 * What tells this device or model apart: the category's identification text and its direct
 * children with their images (the choices a reader picks from).
 */
export async function identification(title: string): Promise<WikiIdentification> {
  const category = await requirePage('CATEGORY', title);
  const [kids, imageGuids] = await Promise.all([
    category.child_count > 0 ? listChildren(category.wikiid, { limit: CHILDREN_IN_PAGE, offset: 0 }) : [],
    imageGuidsOf([category.identification_raw]),
  ]);
  return {
    wikiid: category.wikiid,
    title: category.title,
    display_title: category.display_title,
    url: wikiUrl(siteUrl(), category),
    identification_raw: category.identification_raw,
    identification_rendered: renderWiki(category.identification_raw, { siteUrl: siteUrl(), imageGuids }).html,
    image: category.image,
    children: kids.map((child) => ({
      ...wikiRef(child, siteUrl()),
      image: child.image,
      description: child.description,
    })),
  };
}

export async function revisions(rawNamespace: string, title: string, page: Page): Promise<WikiRevisionView[]> {
  const wiki = await requirePage(requireNamespace(rawNamespace), title);
  const found = await listWikiRevisions(wiki.wikiid, page);
  const users = new Map(
    (await getUsers([...new Set(found.map((revision) => revision.userid))])).map((user) => [user.userid, user]),
  );
  return found.map((revision) => ({
    wikiid: revision.wikiid,
    revisionid: revision.revisionid,
    title: revision.title,
    display_title: revision.display_title,
    date: revision.date,
    userid: revision.userid,
    username: users.get(revision.userid)?.username ?? null,
    reverted_from: revision.reverted_from,
    current: revision.revisionid === wiki.revisionid,
  }));
}

// ---------------------------------------------------------------------------------------------
// Writes

export async function create(caller: Caller, input: WikiInput) {
  const namespace = parseNamespace(input.namespace);
  if (!namespace || !CREATABLE_NAMESPACES.includes(namespace)) {
    const hint = namespace === 'COURSE' ? ' (courses are created with POST /courses)' : '';
    throw ValidationError.field(
      'namespace',
      'invalid',
      `namespace must be one of: ${CREATABLE_NAMESPACES.join(', ')}${hint}`,
    );
  }
  const title = validTitle(input.title);
  const langid = validLangid(input.langid);
  if (input.identification !== undefined && namespace !== 'CATEGORY') {
    throw ValidationError.field('identification', 'invalid', 'identification is for CATEGORY pages');
  }
  await Promise.all([
    assertNamedImagesUsable(caller, 'contents', [input.contents]),
    assertNamedImagesUsable(caller, 'identification', [input.identification]),
  ]);
  const parent = input.parent ? await requireParent(namespace, input.parent) : null;
  const now = nowSeconds();
  const [wikiid, revisionid] = await Promise.all([nextId('wiki'), nextRevisionId()]);
  const wiki: WikiRecord = {
    wikiid,
    namespace,
    title,
    display_title: input.display_title?.trim() || title,
    langid,
    revisionid,
    contents_raw: input.contents,
    excerpt: excerptOf(input.contents),
    description: input.description ?? '',
    identification_raw: input.identification ?? '',
    image: null,
    flags: [...new Set(input.flags ?? [])],
    table_of_contents: input.table_of_contents ?? false,
    author_userid: caller.userid,
    ...serviceAuthorFields(caller),
    modified_by: caller.userid,
    parent_wikiid: parent?.wikiid ?? null,
    child_count: 0,
    created_date: now,
    modified_date: now,
  };
  try {
    await insertWiki(wiki);
  } catch (error) {
    const taken = titleTaken(error, namespace, title);
    if (taken) throw taken;
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('parent')) {
      throw ValidationError.field('parent', 'not_found', `The parent page ${input.parent} no longer exists`);
    }
    throw error;
  }
  return pageView(wiki, caller);
}

/** A course's title lives in its course item too (lists, search): courses are renamed through /courses. */
function assertNotCourseRename(before: WikiRecord, title: string): void {
  if (before.namespace === 'COURSE' && title !== before.title) {
    throw ValidationError.field('title', 'immutable', 'A course is renamed through PATCH /courses/{wikiid}');
  }
}

/** Writes `after` as a new revision of `before`, mapping failures to 409/422/404. */
async function saveRevision(
  caller: Caller,
  before: WikiRecord,
  after: WikiRecord,
  expectedRevision: number,
  revertedFrom: number | null,
) {
  try {
    await updateWikiContent(before, after, expectedRevision, { reverted_from: revertedFrom });
  } catch (error) {
    const conflict = await staleConflict(error, caller);
    if (conflict) throw conflict;
    const taken = titleTaken(error, after.namespace, after.title);
    if (taken) throw taken;
    if (error instanceof TransactionConditionFailed && error.failedLabels.includes('wiki')) {
      throw new NotFoundError(`No ${before.namespace} page titled ${before.title}`);
    }
    throw error;
  }
  // New content supersedes an open approval request for the old revision.
  await noteNewDocumentRevision('wiki', after.wikiid, after.revisionid, caller.userid);
  return pageView(after, caller);
}

export async function patch(
  caller: Caller,
  rawNamespace: string,
  rawTitle: string,
  expectedRevision: number,
  input: WikiPatch,
) {
  const before = await requirePage(requireNamespace(rawNamespace), rawTitle);
  if (Object.values(input).every((value) => value === undefined)) {
    throw ValidationError.field(
      'body',
      'missing_field',
      'Give at least one of contents, title, display_title, description, identification, flags, table_of_contents',
    );
  }
  const title = input.title === undefined ? before.title : validTitle(input.title);
  if (title !== before.title && before.namespace === 'CATEGORY') {
    // Guides name their category by title; a rename would leave them pointing nowhere.
    throw ValidationError.field(
      'title',
      'immutable',
      'A CATEGORY page cannot be renamed: guides name their category by title',
    );
  }
  if (input.identification !== undefined && before.namespace !== 'CATEGORY') {
    throw ValidationError.field('identification', 'invalid', 'identification is for CATEGORY pages');
  }
  assertNotCourseRename(before, title);
  await Promise.all([
    assertNamedImagesUsable(caller, 'contents', [input.contents], [before.contents_raw]),
    assertNamedImagesUsable(caller, 'identification', [input.identification], [before.identification_raw]),
  ]);
  const contents = input.contents ?? before.contents_raw;
  const after: WikiRecord = {
    ...before,
    title,
    display_title:
      input.display_title?.trim() ||
      (input.title !== undefined && before.display_title === before.title ? title : before.display_title),
    contents_raw: contents,
    excerpt: input.contents === undefined ? before.excerpt : excerptOf(contents),
    description: input.description ?? before.description,
    identification_raw: input.identification ?? before.identification_raw,
    flags: input.flags ? [...new Set(input.flags)] : before.flags,
    table_of_contents: input.table_of_contents ?? before.table_of_contents,
    revisionid: await nextRevisionId(),
    modified_by: caller.userid,
    modified_date: nowSeconds(),
  };
  return saveRevision(caller, before, after, expectedRevision, null);
}

/** Restores an earlier revision's content as a new revision (history is never rewritten). */
export async function revert(
  caller: Caller,
  rawNamespace: string,
  rawTitle: string,
  expectedRevision: number,
  targetRevision: number,
) {
  const before = await requirePage(requireNamespace(rawNamespace), rawTitle);
  const target = await getWikiRevision(before.wikiid, targetRevision);
  if (!target)
    throw ValidationError.field('revisionid', 'not_found', `Page ${before.title} has no revision ${targetRevision}`);
  assertNotCourseRename(before, target.title);
  if (targetRevision === before.revisionid && expectedRevision === before.revisionid) {
    throw ValidationError.field('revisionid', 'invalid', `Revision ${targetRevision} is already the current one`);
  }
  const after: WikiRecord = {
    ...before,
    title: target.title,
    display_title: target.display_title,
    contents_raw: target.contents_raw,
    excerpt: target.excerpt,
    description: target.description,
    identification_raw: target.identification_raw,
    flags: target.flags,
    table_of_contents: target.table_of_contents,
    revisionid: await nextRevisionId(),
    modified_by: caller.userid,
    modified_date: nowSeconds(),
  };
  return saveRevision(caller, before, after, expectedRevision, targetRevision);
}

export async function remove(
  caller: Caller,
  rawNamespace: string,
  rawTitle: string,
  expectedRevision: number,
): Promise<void> {
  await removePage(caller, await requirePage(requireNamespace(rawNamespace), rawTitle), expectedRevision);
}

/**
 * Deletes a page named by its wikiid (Admins): also a page whose stored title no path can name,
 * such as one saved with a lone surrogate before the API refused them.
 */
export async function removeById(caller: Caller, wikiid: number, expectedRevision: number | undefined): Promise<void> {
  const wiki = await getWiki(wikiid);
  if (!wiki) throw new NotFoundError(`No page with wikiid ${wikiid}`);
  // Required like on every page write, but an unknown id is a 404 first.
  if (expectedRevision === undefined) throw missingRevisionid(wiki.revisionid);
  await removePage(caller, wiki, expectedRevision);
}

async function removePage(caller: Caller, wiki: WikiRecord, expectedRevision: number): Promise<void> {
  if (wiki.namespace === 'COURSE')
    throw ValidationError.field('namespace', 'invalid', 'Courses are deleted through /courses');
  try {
    await deleteWiki(wiki, expectedRevision);
  } catch (error) {
    if (!(error instanceof TransactionConditionFailed) || !error.failedLabels.includes('wiki')) throw error;
    const current = error.oldItems.wiki ? wikiFromItem(error.oldItems.wiki) : undefined;
    if (!current) throw new NotFoundError(`No ${wiki.namespace} page titled ${wiki.title}`);
    if (current.revisionid !== expectedRevision) {
      throw new StaleRevisionError(current.revisionid, await pageView(current, caller), 'page');
    }
    throw ValidationError.field(
      'title',
      'has_children',
      `${current.title} has ${current.child_count} child page(s); move or delete them first`,
    );
  }
}

/**
 * Puts a page under another page of its namespace (or at the top with parent null). Refuses
 * a parent inside the page's own subtree (a cycle) and trees deeper than MAX_HIERARCHY_DEPTH.
 * The hierarchy is not content: a move keeps the revisionid, which is checked when given.
 */
export async function setParent(
  caller: Caller,
  namespace: WikiNamespace,
  rawTitle: string,
  parentTitle: string | null,
  expectedRevision?: number,
) {
  // Something on the path moving (or the revision changing) meanwhile is a lost race: read again, decide again.
  return retryOnLostRace(
    async () => {
      const wiki = await requirePage(namespace, rawTitle);
      if (expectedRevision !== undefined && wiki.revisionid !== expectedRevision) {
        throw new StaleRevisionError(wiki.revisionid, await pageView(wiki, caller), 'page');
      }
      const parent = parentTitle === null ? null : await requireParent(namespace, parentTitle);
      if ((parent?.wikiid ?? null) === wiki.parent_wikiid) return pageView(wiki, caller);
      const chain = parent ? [parent, ...(await ancestorsOf(parent))] : [];
      if (parent && (parent.wikiid === wiki.wikiid || chain.some((ancestor) => ancestor.wikiid === wiki.wikiid))) {
        throw ValidationError.field(
          'parent',
          'cycle',
          `${parent.title} is ${wiki.title} itself or one of its descendants`,
        );
      }
      if (chain.length >= MAX_HIERARCHY_DEPTH) {
        throw ValidationError.field('parent', 'too_deep', `Pages nest at most ${MAX_HIERARCHY_DEPTH} levels deep`);
      }
      await moveWiki(wiki, parent, chain, expectedRevision);
      return pageView({ ...wiki, parent_wikiid: parent?.wikiid ?? null }, caller);
    },
    { attempts: 5, message: 'The hierarchy kept changing during the move; try again' },
  );
}

/**
 * Wiki text rendered as a saved page's would be, without saving it (POST /wikis/preview); images
 * named by id show when the writer could place them (decision 332).
 */
export async function preview(caller: Caller, contents: string): Promise<{ contents_rendered: string }> {
  const imageGuids = await previewImageGuids(caller, contents);
  return { contents_rendered: sanitizeHtml(renderWiki(contents, { siteUrl: siteUrl(), imageGuids }).html) };
}
