/**
 * Request schemas of the wikis group that its service takes as input (`z.output` of these),
 * declared once for the routes and the service (a service never imports a routes file).
 */
import * as z from 'zod/mini';
import { pagination, queryFlag, queryInt } from '../../shared/http/query.ts';
import { MAX_CONTENTS_LENGTH, MAX_TITLE_LENGTH } from '../../shared/domain/wiki-namespaces.ts';

const text = (max: number) => z.string().check(z.maxLength(max));
export const titleText = z.string().check(z.minLength(1), z.maxLength(MAX_TITLE_LENGTH * 2));
const flags = z.array(text(100)).check(z.maxLength(50));

export const createWikiBody = z.object({
  namespace: z.string().check(z.minLength(1), z.maxLength(20)),
  title: titleText,
  contents: text(MAX_CONTENTS_LENGTH),
  display_title: z.optional(text(MAX_TITLE_LENGTH)),
  description: z.optional(text(1000)),
  identification: z.optional(text(20_000)),
  flags: z.optional(flags),
  table_of_contents: z.optional(z.boolean()),
  parent: z.optional(z.nullable(titleText)),
  langid: z.optional(z.string().check(z.minLength(2), z.maxLength(10))),
});

export const patchWikiBody = z.object({
  contents: z.optional(text(MAX_CONTENTS_LENGTH)),
  title: z.optional(titleText),
  display_title: z.optional(text(MAX_TITLE_LENGTH)),
  description: z.optional(text(1000)),
  identification: z.optional(text(20_000)),
  flags: z.optional(flags),
  table_of_contents: z.optional(z.boolean()),
});

export const wikiListQuery = z.object({
  ...pagination,
  display: z.optional(z.enum(['titles', 'hierarchy', 'hierarchyOrder'])),
  modifiedSince: queryInt,
  withDisplayTitles: queryFlag,
});

export type WikiInput = z.output<typeof createWikiBody>;
export type WikiPatch = z.output<typeof patchWikiBody>;
export type WikiListQuery = z.output<typeof wikiListQuery>;

/** GET /categories: `?withDisplayTitles` (a bare flag, as the iOS app sends it), requireGuides, includeStubs. */
export const categoryTreeQuery = z.object({
  withDisplayTitles: queryFlag,
  requireGuides: queryFlag,
  includeStubs: queryFlag,
});

/** The largest list GET /categories/all gives in one answer: the apps ask for 100000 and never page. */
export const MAX_CATEGORY_TITLES = 100_000;

/** GET /categories/all: offset as everywhere; limit up to MAX_CATEGORY_TITLES (larger is clamped), default 20. */
export const allCategoriesQuery = z.object({
  offset: pagination.offset,
  limit: z.pipe(
    z._default(z.string().check(z.regex(/^\d+$/, 'must be a positive integer')), '20'),
    z.pipe(
      z.transform((value: string) => Math.min(Number.parseInt(value, 10), MAX_CATEGORY_TITLES)),
      z.number().check(z.minimum(1, 'must be at least 1')),
    ),
  ),
});

/** GET /categories/{name} and GET /wikis/{namespace}/{title}: the app's device language, accepted as any tag. */
export const pageReadQuery = z.object({ langid: z.optional(z.string().check(z.maxLength(20))) });

export type CategoryTreeQuery = z.output<typeof categoryTreeQuery>;
