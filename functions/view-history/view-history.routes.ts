/** User view history: views of guides and wiki pages, by user or by document, newest first. */
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { idParams, pathId } from '../../shared/http/schemas.ts';
import { viewHistoryEntrySchema } from '../../shared/views/view-history-views.ts';
import { viewRangeQuery } from './view-history.schemas.ts';
import * as history from './view-history.service.ts';

export const viewHistoryGroup = defineGroup({
  name: 'view-history',
  access: { table: 'read' },
  routes: [
    route({
      method: 'GET',
      path: '/user_view_history/user/{userid}',
      auth: 'user',
      summary: 'Guides and wiki pages a user viewed, newest first (the user and Admins)',
      description:
        'Optional start_date (views on or after) and end_date (on or before), Unix seconds; paged with offset/limit.',
      params: idParams('userid'),
      query: viewRangeQuery,
      response: z.array(viewHistoryEntrySchema),
      handler: ({ caller, params, query }) => history.ofUser(caller, params.userid, query),
    }),
    route({
      method: 'GET',
      path: '/user_view_history/{doc_type}/{docid}',
      auth: 'user',
      summary: 'Who viewed a guide or wiki page, newest first (its author and Admins)',
      description:
        'doc_type is guide or wiki (docid a guideid or wikiid); same filters and paging as the user history.',
      params: z.object({ doc_type: z.string().check(z.minLength(1), z.maxLength(20)), docid: pathId }),
      query: viewRangeQuery,
      response: z.array(viewHistoryEntrySchema),
      handler: ({ caller, params, query }) => history.ofDocument(caller, params.doc_type, params.docid, query),
    }),
  ],
});
