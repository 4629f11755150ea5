/** Wiki helpers for API tests: create pages with unique titles. */
import { api, createUser, loginAdmin, uniqueSuffix, type TestUser } from './api.ts';

export interface CreatedWiki {
  wikiid: number;
  namespace: string;
  title: string;
  revisionid: number;
  [field: string]: unknown;
}

/** A page created by the Admin (or `token`); throws unless 201. */
export async function createWiki(body: Record<string, unknown> = {}, token?: string): Promise<CreatedWiki> {
  const response = await api('POST', '/wikis', {
    token: token ?? (await loginAdmin()),
    body: { namespace: 'WIKI', title: `Page ${uniqueSuffix()}`, contents: 'Some text.', ...body },
  });
  if (response.status !== 201) throw new Error(`createWiki: ${response.status} ${response.text}`);
  return response.body;
}

/** The path of a page: /wikis/<NS>/<encoded title>. */
export function wikiPath(wiki: { namespace: string; title: string }, suffix = ''): string {
  return `/wikis/${wiki.namespace}/${encodeURIComponent(wiki.title)}${suffix}`;
}

let author: Promise<TestUser> | undefined;

/** One Author per test file. */
export function anAuthor(): Promise<TestUser> {
  author ??= createUser({ privileges: ['Author'] });
  return author;
}
