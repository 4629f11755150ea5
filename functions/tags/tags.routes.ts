/**
 * Tags: the site's tag list and the tags of guides and wiki pages. A tag is created the first
 * time it is put on a document; tags are lower case. Bodies are `{"tag": "battery"}`.
 */
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { idParams } from '../../shared/http/schemas.ts';
import { pagination } from '../../shared/http/query.ts';
import { tagListSchema } from '../../shared/views/tag-views.ts';
import * as tags from './tags.service.ts';

const tagBody = z.object({ tag: z.string().check(z.minLength(1), z.maxLength(200)) });
const wikiParams = z.object({
  namespace: z.string().check(z.minLength(1), z.maxLength(20)),
  title: z.string().check(z.minLength(1), z.maxLength(400)),
});
/** A document's tags come whole by default (up to 200 a page). */
const documentTagsQuery = z.object({
  limit: z.pipe(
    z._default(z.string().check(z.regex(/^\d+$/)), '200'),
    z.pipe(
      z.transform((value: string) => Math.min(Number(value), 200)),
      z.number().check(z.minimum(1)),
    ),
  ),
  offset: pagination.offset,
});
const FIRST_PAGE = { limit: 200, offset: 0 };

export const tagsGroup = defineGroup({
  name: 'tags',
  access: { table: 'readwrite', conditionChecks: true },
  routes: [
    route({
      method: 'GET',
      path: '/tags',
      auth: 'user',
      summary: 'Every tag of the site, alphabetical (array of strings; offset/limit)',
      query: z.object(pagination),
      response: tagListSchema,
      handler: ({ query }) => tags.all(query),
    }),
    route({
      method: 'GET',
      path: '/guides/{guideid}/tags',
      auth: 'public',
      summary: 'Tags of a guide, alphabetical (anyone who can see the guide; anonymous on a public site)',
      params: idParams('guideid'),
      query: documentTagsQuery,
      response: tagListSchema,
      handler: ({ caller, params, query }) => tags.guideTags(caller, params.guideid, query),
    }),
    route({
      method: 'PUT',
      path: '/guides/{guideid}/tag',
      auth: 'user',
      summary: "Tag a guide (creating the tag if needed); answers the guide's tags",
      description: "The guide's author, Authors who can see it, and Admins. Tagging twice is harmless.",
      params: idParams('guideid'),
      body: tagBody,
      example: { tag: 'battery' },
      response: tagListSchema,
      handler: ({ caller, params, body }) => tags.tagGuide(caller, params.guideid, body.tag, FIRST_PAGE),
    }),
    route({
      method: 'DELETE',
      path: '/guides/{guideid}/tag',
      auth: 'user',
      status: 204,
      summary: 'Remove a tag from a guide (404 when the guide does not have it)',
      params: idParams('guideid'),
      body: tagBody,
      example: { tag: 'battery' },
      handler: async ({ caller, params, body }) => {
        await tags.untagGuide(caller, params.guideid, body.tag);
      },
    }),
    route({
      method: 'GET',
      path: '/wikis/{namespace}/{title}/tags',
      auth: 'user',
      summary: 'Tags of a wiki page, alphabetical',
      params: wikiParams,
      query: documentTagsQuery,
      response: tagListSchema,
      handler: ({ params, query }) => tags.wikiTags(params.namespace, params.title, query),
    }),
    route({
      method: 'PUT',
      path: '/wikis/{namespace}/{title}/tag',
      auth: 'author',
      summary: "Tag a wiki page (creating the tag if needed); answers the page's tags",
      params: wikiParams,
      body: tagBody,
      example: { tag: 'battery' },
      response: tagListSchema,
      handler: ({ caller, params, body }) => tags.tagWiki(caller, params.namespace, params.title, body.tag, FIRST_PAGE),
    }),
    route({
      method: 'DELETE',
      path: '/wikis/{namespace}/{title}/tag',
      auth: 'author',
      status: 204,
      summary: 'Remove a tag from a wiki page (404 when the page does not have it)',
      params: wikiParams,
      body: tagBody,
      example: { tag: 'battery' },
      handler: async ({ params, body }) => {
        await tags.untagWiki(params.namespace, params.title, body.tag);
      },
    }),
  ],
});
