/**
 * Translation glossary (sites with several languages only; 403 elsewhere): entries of a term
 * in the site's first language and its translations into the other site languages.
 */
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { idParams } from '../../shared/http/schemas.ts';
import { wholeListQuery } from '../../shared/http/query.ts';
import { glossaryChangesSchema, glossaryEntrySchema } from '../../shared/views/glossary-views.ts';
import { glossaryChangesBody, MAX_GLOSSARY_CHANGES } from './glossary.schemas.ts';
import * as glossary from './glossary.service.ts';

export const glossaryGroup = defineGroup({
  name: 'glossary',
  access: { table: 'readwrite' },
  routes: [
    route({
      method: 'GET',
      path: '/translation_glossary/entries',
      auth: 'user',
      summary:
        'Every glossary entry, alphabetical by term: {entryid, term, langid, translations: [{langid, ' +
        'translation}], notes, created_date, modified_date}',
      description: 'Sites with one language answer 403. Up to 1000 entries per page (offset/limit).',
      query: wholeListQuery,
      response: z.array(glossaryEntrySchema),
      handler: ({ query }) => glossary.list(query),
    }),
    route({
      method: 'PUT',
      path: '/translation_glossary/entries',
      auth: 'author',
      summary: 'Add, change and delete entries in one atomic request; answers {saved: [entries], deleted: [entryids]}',
      description:
        '`entries` without `entryid` are added (`term` required). With `entryid`, the fields given replace ' +
        'the old ones; ' +
        '`translations` is the whole list wanted, so a language left out is deleted from the entry. ' +
        '`delete` lists entryids ' +
        'to delete. Terms are unique (case-insensitive); each translation langid must be another site ' +
        'language, once. ' +
        `At most ${MAX_GLOSSARY_CHANGES} changes; all apply or none (422 names the failing field, e.g. ` +
        `entries.1.term).`,
      body: glossaryChangesBody,
      example: {
        entries: [
          {
            term: 'torque wrench',
            translations: [{ langid: 'de', translation: 'Drehmomentschlüssel' }],
            notes: 'Tool',
          },
          { entryid: 7, translations: [] },
        ],
        delete: [9],
      },
      response: glossaryChangesSchema,
      handler: ({ caller, body }) => glossary.apply(caller, body),
    }),
    route({
      method: 'DELETE',
      path: '/translation_glossary/entries/{entryid}',
      auth: 'author',
      status: 204,
      summary: 'Delete a glossary entry',
      params: idParams('entryid'),
      handler: async ({ params }) => {
        await glossary.remove(params.entryid);
      },
    }),
  ],
});
