/** Small helpers the training and compliance crawlers share. */
import { SourceError } from '../crawl.ts';

/** A source that does not hand this resource to the crawling account (reported, not fatal). */
export function isDenied(error: unknown): boolean {
  return error instanceof SourceError && (error.status === 403 || error.status === 401);
}
