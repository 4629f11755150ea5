/**
 * The state a route's valid request needs beyond the shared fuzz world, made fresh for each
 * request (the valid one and every mutation) by the route's preparation:
 *
 * - Routes that rename, revert or use up an object (a page's title, a signoff request answered
 *   once, a work-log entry finished once) act on objects made for that request, so a fuzzed
 *   write can never invalidate what another request, or the reads after a write, rely on.
 * - Routes that need a chain of state (a signoff request needs a course stage with an
 *   assessment, an assignment and a request) get it built here, so every write route of the
 *   table can accept its valid request (route-fuzz.test.ts asserts that coverage).
 *
 * A preparation answers values for path parameters and body ids (`values`, they win over the
 * world's), fields laid over the example body (`body`), query values, the role that sends the
 * valid request, or a raw body. Keyed by `METHOD path` as declared in the route table.
 */
import { api, uniqueSuffix } from '../support/api.ts';
import type { FuzzWorld } from './fuzz-fixtures.ts';

export interface Preparation {
  values?: Record<string, string | number>;
  body?: Record<string, unknown>;
  query?: Record<string, string>;
  /** Who sends the valid request (mutations go as either role). Default: the fuzz Admin. */
  role?: 'admin' | 'user';
  rawBody?: string;
  contentType?: string;
}

type Prepare = (world: FuzzWorld) => Promise<Preparation>;

/** The body of a 2xx answer, or an error that names the preparation step. */
async function made(what: string, method: string, path: string, token: string, body?: unknown): Promise<any> {
  const response = await api(method, path, { token, body });
  if (response.status >= 300) throw new Error(`fuzz preparation ${what}: ${response.status} ${response.text}`);
  return response.body;
}

/** A WIKI page of its own, with two revisions (the first one to revert to). */
async function ownPage(world: FuzzWorld) {
  const title = `Fuzz own page ${uniqueSuffix()}`;
  const page = await made('page', 'POST', '/wikis', world.admin.token, { namespace: 'WIKI', title, contents: 'One.' });
  const path = `/wikis/WIKI/${encodeURIComponent(title)}?revisionid=${page.revisionid}`;
  await made('page edit', 'PATCH', path, world.admin.token, { contents: 'Two.' });
  return { title, firstRevision: page.revisionid as number };
}

export const PREPARATIONS: Record<string, Prepare> = {
  // A fuzzed PATCH may rename the page (a body title) and a revert may bring back another one:
  // each request has its own page, so the world's page keeps its title.
  'PATCH /wikis/{namespace}/{title}': async (world) => {
    const page = await ownPage(world);
    return { values: { title: page.title } };
  },
  'POST /wikis/{namespace}/{title}/revert': async (world) => {
    const page = await ownPage(world);
    return { values: { title: page.title }, body: { revisionid: page.firstRevision } };
  },
};
