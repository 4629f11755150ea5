/**
 * Request schemas of the wikis group that its service takes as input (`z.output` of these),
 * declared once for the routes and the service (a service never imports a routes file).
 */
import * as z from 'zod/mini';
import { pagination, queryFlag, queryInt } from '../../shared/http/query.ts';
import { MAX_CONTENTS_LENGTH, MAX_TITLE_LENGTH } from '../../shared/domain/wiki-namespaces.ts';
import { MAX_COLLECTION_GUIDES } from '../../shared/db/entities/collection.ts';

const text = (max: number) => z.string().check(z.maxLength(max));
export const titleText = z.string().check(z.minLength(1), z.maxLength(MAX_TITLE_LENGTH * 2));
const flags = z.array(text(100)).check(z.maxLength(50));

/** What POST /wikis/preview renders: a page's contents as they would be saved. */
export const previewWikiBody = z.object({ contents: text(MAX_CONTENTS_LENGTH) });

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

const collectionGuideIds = z.array(z.int().check(z.positive())).check(
  z.maxLength(MAX_COLLECTION_GUIDES),
  z.refine((ids) => new Set(ids).size === ids.length, 'repeats a guideid'),
);

/** A collection (decision 281): title, description, an image of the media library, its guides in order, its date. */
export const createCollectionBody = z.object({
  title: z.string().check(z.trim(), z.minLength(1), z.maxLength(MAX_TITLE_LENGTH)),
  description: z._default(z.string().check(z.maxLength(2000)), ''),
  /** A GuideImage media item id (ready); null or left out: the first guide's image shows. */
  image: z._default(z.nullable(z.int().check(z.positive())), null),
  guideids: z._default(collectionGuideIds, []),
  /** Epoch seconds; left out: now. The list is newest first by it. */
  date: z.optional(z.int().check(z.nonnegative(), z.lte(99_999_999_999))),
});

/** Any of the fields; `guideids` replaces the list (its order is the collection's). */
export const patchCollectionBody = z.object({
  title: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(MAX_TITLE_LENGTH))),
  description: z.optional(z.string().check(z.maxLength(2000))),
  image: z.optional(z.nullable(z.int().check(z.positive()))),
  guideids: z.optional(collectionGuideIds),
  date: z.optional(z.int().check(z.nonnegative(), z.lte(99_999_999_999))),
});

export type CreateCollectionInput = z.output<typeof createCollectionBody>;
export type PatchCollectionInput = z.output<typeof patchCollectionBody>;
