/**
 * Users and guides: guides a user authored, favorites and completions (docs/wire-fidelity.md
 * §3.2, §3.26). Guides themselves carry `favorited` and `completed` for the caller.
 */
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { idParams } from '../../shared/http/schemas.ts';
import { DEFAULT_PAGE_SIZE, MAX_WHOLE_LIST, pagination, wholeListPagination } from '../../shared/http/query.ts';
import { guideMarkSchema } from '../../shared/views/guide-mark-views.ts';
import { guideSummarySchema } from '../../shared/views/guide-views.ts';
import * as userGuides from './user-guides.service.ts';

const pageQuery = z.object(pagination);
/** GET /user/guides: apps send limit=10000 and never page (decision 194); the default stays 20. */
const wholeAuthoredQuery = z.object(wholeListPagination(DEFAULT_PAGE_SIZE));
/** GET /user/favorites/guides: the offline syncer sends no limit and reads every favorite at once. */
const wholeFavoritesQuery = z.object(wholeListPagination(MAX_WHOLE_LIST));

export const userGuidesGroup = defineGroup({
  name: 'user-guides',
  // Favorites are single puts and deletes (no transactions). No media bucket: guide summaries show the guide
  // image at its /igi/ path (decisions 197, 312).
  access: { table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'DeleteItem'] },
  routes: [
    route({
      method: 'GET',
      path: '/users/{userid}/guides',
      auth: 'user',
      summary: 'Guides the user authored (summaries the caller can read), by guideid',
      params: idParams('userid'),
      query: pageQuery,
      response: z.array(guideSummarySchema),
      handler: ({ caller, params, query }) => userGuides.authoredGuides(caller, params.userid, query),
    }),
    route({
      method: 'GET',
      path: '/user/guides',
      auth: 'user',
      summary: 'Guides the signed-in user authored, by guideid (limit up to 10,000: one answer)',
      query: wholeAuthoredQuery,
      response: z.array(guideSummarySchema),
      handler: ({ caller, query }) => userGuides.authoredGuides(caller, caller.userid, query),
    }),
    route({
      method: 'GET',
      path: '/users/{userid}/favorites/guides',
      auth: 'user',
      summary: "A user's favorite guides: [{guide: GuideSummary, date}]",
      params: idParams('userid'),
      query: pageQuery,
      response: z.array(guideMarkSchema),
      handler: ({ caller, params, query }) => userGuides.markedGuides(caller, 'FAVORITE', params.userid, query),
    }),
    route({
      method: 'GET',
      path: '/user/favorites/guides',
      auth: 'user',
      summary: "The signed-in user's favorite guides, all of them (up to 10,000) unless limited",
      query: wholeFavoritesQuery,
      response: z.array(guideMarkSchema),
      handler: ({ caller, query }) => userGuides.markedGuides(caller, 'FAVORITE', caller.userid, query),
    }),
    route({
      method: 'PUT',
      path: '/user/favorites/guides/{guideid}',
      auth: 'user',
      summary: 'Favorite a guide (204; again is a no-op)',
      status: 204,
      params: idParams('guideid'),
      handler: async ({ caller, params }) => {
        await userGuides.setMark(caller, 'FAVORITE', params.guideid, true);
      },
    }),
    route({
      method: 'DELETE',
      path: '/user/favorites/guides/{guideid}',
      auth: 'user',
      summary: 'Un-favorite a guide (204; also when it was not a favorite)',
      status: 204,
      params: idParams('guideid'),
      handler: async ({ caller, params }) => {
        await userGuides.setMark(caller, 'FAVORITE', params.guideid, false);
      },
    }),
    route({
      method: 'GET',
      path: '/users/{userid}/completions',
      auth: 'user',
      summary: 'Guides the user marked completed: [{guide: GuideSummary, date}]',
      params: idParams('userid'),
      query: pageQuery,
      response: z.array(guideMarkSchema),
      handler: ({ caller, params, query }) => userGuides.markedGuides(caller, 'COMPLETED', params.userid, query),
    }),
    route({
      method: 'GET',
      path: '/user/completions',
      auth: 'user',
      summary: 'Guides the signed-in user marked completed: [{guide: GuideSummary, date}]',
      query: pageQuery,
      response: z.array(guideMarkSchema),
      handler: ({ caller, query }) => userGuides.markedGuides(caller, 'COMPLETED', caller.userid, query),
    }),
    route({
      method: 'PUT',
      path: '/guides/{guideid}/completed',
      auth: 'user',
      summary: 'Mark a guide completed by the signed-in user (204; again is a no-op)',
      status: 204,
      params: idParams('guideid'),
      handler: async ({ caller, params }) => {
        await userGuides.setMark(caller, 'COMPLETED', params.guideid, true);
      },
    }),
    route({
      method: 'DELETE',
      path: '/guides/{guideid}/completed',
      auth: 'user',
      summary: 'Un-mark a guide completed (204)',
      status: 204,
      params: idParams('guideid'),
      handler: async ({ caller, params }) => {
        await userGuides.setMark(caller, 'COMPLETED', params.guideid, false);
      },
    }),
  ],
});
