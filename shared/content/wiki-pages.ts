/**
 * Finding a wiki page named in a path (`/wikis/{namespace}/{title}`): an unknown namespace or
 * title is a 404. Wikis, tags and comments share this, so the rule lives here once.
 */
import { NotFoundError } from '../domain/errors.ts';
import { canonicalTitle, parseNamespace, type WikiNamespace } from '../domain/wiki-namespaces.ts';
import { getWikiByTitle, type WikiRecord } from '../db/entities/wiki.ts';

export function requireNamespace(raw: string): WikiNamespace {
  const namespace = parseNamespace(raw);
  if (!namespace) throw new NotFoundError(`Unknown wiki namespace ${raw}`);
  return namespace;
}

export async function requirePage(namespace: WikiNamespace, title: string): Promise<WikiRecord> {
  const wiki = await getWikiByTitle(namespace, title);
  if (!wiki) throw new NotFoundError(`No ${namespace} page titled ${canonicalTitle(title)}`);
  return wiki;
}
