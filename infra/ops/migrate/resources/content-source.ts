/**
 * Small reads the content crawlers (users, guides, media, ...) share: a list that the source may
 * refuse as a whole, and the ids of the wire objects that stand for stored references.
 */
import { SourceError, type CrawlContext, type QueryValue } from '../crawl.ts';

/** Statuses by which a source says "not for this account" or "not here" rather than failing. */
const NOT_EXPOSED = new Set([401, 403, 404]);

export function isNotExposed(error: unknown): boolean {
  return error instanceof SourceError && NOT_EXPOSED.has(error.status);
}

/**
 * Every element of a paged list, or undefined when the source refuses the list to this account
 * (reported as unexposed under `what`, so the crawl goes on without it).
 */
export async function listOrUnexposed<T>(
  context: CrawlContext,
  what: string,
  path: string,
  options: { query?: Record<string, QueryValue>; itemsOf?: (body: unknown) => T[] } = {},
): Promise<T[] | undefined> {
  const all: T[] = [];
  try {
    for await (const page of context.api.pages<T>(path, options)) all.push(...page);
  } catch (error) {
    if (!isNotExposed(error)) throw error;
    context.report.unexposed(what, `GET ${path} answered ${(error as SourceError).status}`);
    return undefined;
  }
  return all;
}

/** Walks a paged list page by page; a refused list is reported as unexposed and walks nothing. */
export async function forEachPageOrUnexposed<T>(
  context: CrawlContext,
  what: string,
  path: string,
  visit: (page: T[]) => Promise<void>,
  query?: Record<string, QueryValue>,
): Promise<void> {
  try {
    for await (const page of context.api.pages<T>(path, { query })) await visit(page);
  } catch (error) {
    if (!isNotExposed(error)) throw error;
    context.report.unexposed(what, `GET ${path} answered ${(error as SourceError).status}`);
  }
}

/** The id a wire object (Image, Video, Document, embed) carries, or the bare id a view shows instead. */
export function wireId(value: unknown, ...idFields: string[]): number | null {
  if (typeof value === 'number') return value;
  if (!value || typeof value !== 'object') return null;
  for (const field of idFields) {
    const id = (value as Record<string, unknown>)[field];
    if (typeof id === 'number') return id;
  }
  return null;
}
