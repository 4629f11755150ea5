/**
 * Wikis: pages in namespaces (CATEGORY, WIKI, INFO, ITEM; COURSE pages are read here and built
 * by the courses endpoints), their revisions, and the CATEGORY/WIKI hierarchies.
 */
import { lazyService } from '../../shared/http/lazy-service.ts';
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { pagination } from '../../shared/http/query.ts';
import { optionalRevisionQuery, revisionQuery } from '../../shared/http/revision.ts';
import { idParams } from '../../shared/http/schemas.ts';
import {
  allCategoriesQuery,
  createCollectionBody,
  patchCollectionBody,
  categoryTreeQuery,
  createWikiBody,
  pageReadQuery,
  patchWikiBody,
  previewWikiBody,
  titleText,
  wikiListQuery,
} from './wikis.schemas.ts';
import {
  categoryPageSchema,
  categoryTreeSchema,
  wikiIdentificationSchema,
  wikiPageReadSchema,
  wikiListItemSchema,
  wikiListSchema,
  wikiRevisionSchema,
  wikiSchema,
} from '../../shared/views/wiki-views.ts';
import type * as WikisService from './wikis.service.ts';
import type * as CategoriesService from './categories.service.ts';
import type * as CollectionsService from './collections.service.ts';
import { collectionSchema } from '../../shared/views/collection-views.ts';

const wikis = lazyService<typeof WikisService>(() => import('./wikis.service.ts'));
const categories = lazyService<typeof CategoriesService>(() => import('./categories.service.ts'));
const collections = lazyService<typeof CollectionsService>(() => import('./collections.service.ts'));

/** Namespace and title as they appear in the path; the service checks the namespace (404). */
const pageParams = z.object({ namespace: z.string().check(z.minLength(1), z.maxLength(20)), title: titleText });
const titleParams = z.object({ title: titleText });

const parentBody = z.object({ parent: z.nullable(titleText) });

function parentRoute(namespace: 'CATEGORY' | 'WIKI') {
  return route({
    method: 'PUT',
    path: `/wikis/${namespace}/{title}/parent`,
    auth: 'author',
    plusAsSpace: true,
    summary: `Put a ${namespace} page under another ${namespace} page (parent null: at the top)`,
    description:
      "Refuses a parent inside the page's own subtree (422 code cycle) and trees deeper than 40 levels. The " +
      'hierarchy is ' +
      'not content: the revisionid stays; when ?revisionid= is given it must be the current one (409 otherwise).',
    params: titleParams,
    query: optionalRevisionQuery,
    revision: 'when-given',
    body: parentBody,
    response: wikiSchema,
    example: { parent: null },
    handler: ({ caller, params, query, body }) =>
      wikis.setParent(caller, namespace, params.title, body.parent, query.revisionid),
  });
}

export const wikisGroup = defineGroup({
  name: 'wikis',
  access: { table: 'readwrite', conditionChecks: true },
  routes: [
    route({
      method: 'GET',
      path: '/wikis/{namespace}',
      auth: 'public',
      summary:
        'Pages of a namespace, alphabetical (bare array); display=titles for titles only; display=hierarchy ' +
        'for the tree',
      description:
        'display=hierarchy answers the whole CATEGORY (or WIKI) tree: an object keyed by title whose ' +
        'leaves are [], or with withDisplayTitles an array of {title, display_title, children}. ' +
        'display=hierarchyOrder: that array with no `children` key on a leaf (the Android app). ' +
        'modifiedSince filters the list. Anonymous on a public site (COURSE: signed-in only).',
      params: z.object({ namespace: z.string().check(z.minLength(1), z.maxLength(20)) }),
      query: wikiListQuery,
      response: wikiListSchema,
      handler: ({ caller, params, query }) => wikis.list(caller, params.namespace, query),
    }),
    route({
      method: 'GET',
      path: '/wikis/{namespace}/{title}',
      auth: 'public',
      plusAsSpace: true,
      summary: "A wiki page with its rendered contents; records a view in the reader's history",
      description:
        'A CATEGORY page answers the category page (with guides, featured_guides, related_wikis, ' +
        'solutions_url), as GET /categories/{name} does. As on the real service, GET /wikis/CATEGORY/{title} ' +
        'shows "revisionid": null; POST, PATCH, revert, parent and 409 bodies carry the real revisionid ' +
        '(also listed by GET …/revisions), which PATCH and DELETE check. `+` in the title reads as a space ' +
        '(%2B is a plus). ?langid= is accepted and changes nothing. Anonymous on a public site.',
      params: pageParams,
      query: pageReadQuery,
      response: wikiPageReadSchema,
      handler: ({ caller, params }) => wikis.get(caller, params.namespace, params.title),
    }),
    route({
      method: 'GET',
      path: '/wikis/CATEGORY/{title}/children',
      auth: 'public',
      plusAsSpace: true,
      summary: 'Direct child categories of a category, alphabetical',
      params: titleParams,
      query: z.object(pagination),
      response: z.array(wikiListItemSchema),
      handler: ({ params, query }) => wikis.children(params.title, query),
    }),
    route({
      method: 'GET',
      path: '/wikis/CATEGORY/{title}/identification',
      auth: 'public',
      plusAsSpace: true,
      summary: "How to identify the device: the category's identification text and its child categories with images",
      params: titleParams,
      response: wikiIdentificationSchema,
      handler: ({ params }) => wikis.identification(params.title),
    }),
    route({
      method: 'GET',
      path: '/wikis/{namespace}/{title}/revisions',
      auth: 'user',
      plusAsSpace: true,
      summary: 'Revisions of a page, newest first (beyond the spec: the ids revert and PATCH need)',
      params: pageParams,
      query: z.object(pagination),
      response: z.array(wikiRevisionSchema),
      extensions: { 'x-beyond-spec': true },
      handler: ({ params, query }) => wikis.revisions(params.namespace, params.title, query),
    }),
    route({
      method: 'POST',
      path: '/wikis/preview',
      auth: 'author',
      summary: "Render wiki text without saving it: {contents_rendered}, as a page's would be (the editor's preview)",
      description:
        'Beyond the spec. The same renderer and sanitizer as the saved page; images named by id (`[image|42]`) ' +
        "show when they are ready images of the caller's media library (any for Admins), others are left out. " +
        'For those who may write pages (Authors and Admins).',
      body: previewWikiBody,
      response: z.object({ contents_rendered: z.string() }),
      example: { contents: "== Torque ==\nUse the '''calibrated''' wrench." },
      responseExample: { contents_rendered: '<h2>Torque</h2><p>Use the <strong>calibrated</strong> wrench.</p>' },
      extensions: { 'x-beyond-spec': true },
      handler: async ({ caller, body }) => wikis.preview(caller, body.contents),
    }),
    route({
      method: 'POST',
      path: '/wikis',
      auth: 'author',
      status: 201,
      summary: 'Create a page; the title is unique within its namespace',
      description:
        'namespace: CATEGORY, WIKI, INFO or ITEM. contents (wiki syntax) is required, even empty. parent: ' +
        'the title of a ' +
        'page of the same namespace (CATEGORY and WIKI only). identification: CATEGORY only.',
      body: createWikiBody,
      response: wikiSchema,
      example: {
        namespace: 'WIKI',
        title: 'Torque settings',
        contents: "== Torque ==\nUse the '''calibrated''' wrench.",
      },
      handler: ({ caller, body }) => wikis.create(caller, body),
    }),
    route({
      method: 'PATCH',
      path: '/wikis/{namespace}/{title}',
      auth: 'author',
      plusAsSpace: true,
      summary: 'Edit a page: a new revision; ?revisionid= must be the current one (409 with the page otherwise)',
      description: 'A new title renames the page (except CATEGORY pages, which guides name by title).',
      params: pageParams,
      query: revisionQuery,
      revision: 'required',
      queryExample: { revisionid: '42' },
      body: patchWikiBody,
      response: wikiSchema,
      example: { contents: 'Updated text.' },
      handler: ({ caller, params, query, body }) =>
        wikis.patch(caller, params.namespace, params.title, query.revisionid, body),
    }),
    route({
      method: 'DELETE',
      path: '/wikis/{namespace}/{title}',
      auth: 'author',
      plusAsSpace: true,
      status: 204,
      summary: 'Delete a page (?revisionid= required); a page with child pages cannot be deleted (422)',
      params: pageParams,
      query: revisionQuery,
      revision: 'required',
      queryExample: { revisionid: '42' },
      handler: async ({ caller, params, query }) => {
        await wikis.remove(caller, params.namespace, params.title, query.revisionid);
      },
    }),
    route({
      method: 'DELETE',
      path: '/wikis/id/{wikiid}',
      auth: 'admin',
      status: 204,
      summary: 'Delete a page by its wikiid (?revisionid= required; Admins); beyond the spec',
      description:
        'For a page whose title no path can name (e.g. one stored with a lone UTF-16 surrogate before the ' +
        'API refused them). ' +
        'The same rules as DELETE /wikis/{namespace}/{title}: revisionid required (422; an unknown wikiid ' +
        'is 404 first), 409 when stale, 422 for a page with child pages or a COURSE page.',
      params: idParams('wikiid'),
      query: optionalRevisionQuery,
      revision: 'required',
      extensions: { 'x-beyond-spec': true },
      handler: async ({ caller, params, query }) => {
        await wikis.removeById(caller, params.wikiid, query.revisionid);
      },
    }),
    route({
      method: 'POST',
      path: '/wikis/{namespace}/{title}/revert',
      auth: 'author',
      plusAsSpace: true,
      summary: 'Restore an earlier revision as a new revision',
      description:
        'The body names the revision to restore ({"revisionid": <earlier>}); the query names the current one ' +
        '(?revisionid=<current>, 409 when stale), as every write does.',
      params: pageParams,
      query: revisionQuery,
      revision: 'required',
      queryExample: { revisionid: '42' },
      body: z.object({ revisionid: z.int().check(z.positive()) }),
      response: wikiSchema,
      example: { revisionid: 1 },
      handler: ({ caller, params, query, body }) =>
        wikis.revert(caller, params.namespace, params.title, query.revisionid, body.revisionid),
    }),
    parentRoute('CATEGORY'),
    parentRoute('WIKI'),
    route({
      method: 'GET',
      path: '/categories',
      auth: 'public',
      summary: 'The category tree: an object of titles whose leaves are {}',
      description:
        'A leaf is `{}`, as real Dozuki sites answer. withDisplayTitles (a bare flag) answers ' +
        '{hierarchy, display_titles}: the same tree, its leaves null as the iOS app reads them, and each ' +
        "category's display title by title, as the iOS start screen reads it. requireGuides keeps only " +
        'branches holding a guide the caller may read. includeStubs is accepted; every category is a full ' +
        'page here, so it changes nothing. Anonymous on a public site.',
      query: categoryTreeQuery,
      queryExample: { withDisplayTitles: '1' },
      response: categoryTreeSchema,
      handler: ({ caller, query }) => categories.categoryTree(caller, query),
    }),
    route({
      method: 'GET',
      path: '/categories/all',
      auth: 'public',
      summary: 'Every category title, alphabetical (a flat array)',
      description:
        'limit up to 100000 in one answer (the apps ask for that and never page), default 20; offset as ' +
        'everywhere. A fixed path: it wins over a category named "all", whose page is GET ' +
        '/wikis/CATEGORY/all. Anonymous on a public site.',
      query: allCategoriesQuery,
      queryExample: { limit: '100000' },
      response: z.array(z.string()),
      handler: ({ query }) => categories.allCategoryTitles(query),
    }),
    route({
      method: 'GET',
      path: '/categories/{name}',
      auth: 'public',
      plusAsSpace: true,
      summary: 'The category page: the page, the guides filed under it the caller may read, featured guides',
      description:
        'The same answer as GET /wikis/CATEGORY/{title}, without recording a view. `+` in the name reads ' +
        'as a space (%2B is a plus). ?langid= is accepted and changes nothing. Anonymous on a public site.',
      params: z.object({ name: titleText }),
      query: pageReadQuery,
      response: categoryPageSchema,
      handler: ({ caller, params }) => categories.categoryPageByTitle(caller, params.name),
    }),
    route({
      method: 'GET',
      path: '/collections',
      auth: 'public',
      summary: "Collections of guides, newest first (the iOS app's Featured tab; decision 281)",
      description:
        'A bare array, newest `date` first. Each shows the guides the caller may read, in its order; `image` ' +
        "is never null (the collection's, else its first guide's, else the site's placeholder), nor is a " +
        "guide's (a guide without one shows the collection's).",
      query: z.object(pagination),
      response: z.array(collectionSchema),
      handler: ({ caller, query }) => collections.listCollectionViews(caller, query),
    }),
    route({
      method: 'GET',
      path: '/collections/{collectionid}',
      auth: 'public',
      summary: 'One collection, as the list shows it',
      params: idParams('collectionid'),
      response: collectionSchema,
      handler: ({ caller, params }) => collections.readCollection(caller, params.collectionid),
    }),
    route({
      method: 'POST',
      path: '/collections',
      auth: 'admin',
      summary: 'Create a collection of guides (Admins)',
      description:
        '`guideids` in the order the collection shows them (at most 100, each an existing guide: 422 ' +
        '`guideids`); `image` a ready image id (422 `image`); `date` epoch seconds, now when left out.',
      status: 201,
      body: createCollectionBody,
      example: { title: 'Battery care', description: 'Everything about the battery packs', guideids: [1203] },
      response: collectionSchema,
      handler: ({ caller, body }) => collections.createCollection(caller, body),
    }),
    route({
      method: 'PATCH',
      path: '/collections/{collectionid}',
      auth: 'admin',
      summary: 'Change a collection: title, description, image, the guides and their order, its date (Admins)',
      params: idParams('collectionid'),
      body: patchCollectionBody,
      example: { guideids: [1203, 1187], date: 1764150000 },
      response: collectionSchema,
      handler: ({ caller, params, body }) => collections.updateCollection(caller, params.collectionid, body),
    }),
    route({
      method: 'DELETE',
      path: '/collections/{collectionid}',
      auth: 'admin',
      summary: 'Delete a collection (Admins); its guides stay',
      params: idParams('collectionid'),
      status: 204,
      handler: async ({ params }) => {
        await collections.removeCollection(params.collectionid);
      },
    }),
  ],
});
