/**
 * The pages the API's `url`s open (issue 27): a guide (and its PDF), wiki and category pages, a
 * course, and the plain pages of users and teams. Each reads through the same read-model and
 * access rule as the API's GET of the same thing, and answers what that GET would refuse with the
 * login page (anonymous) or the 404 page (html/page-reply.ts). Every route is `public` so that the
 * page, not the router's JSON 401, answers an anonymous reader; the handlers (content.pages.ts,
 * evaluated when a content page is first asked for: decision 349) ask for a signed-in reader where
 * the API does.
 */
import * as z from 'zod/mini';
import type { Caller } from '../../shared/domain/caller.ts';
import { NotFoundError } from '../../shared/domain/errors.ts';
import { urlSlug } from '../../shared/domain/text.ts';
import { route, type RouteDef } from '../../shared/http/route.ts';
import { lazyService } from '../../shared/http/lazy-service.ts';
import type * as ContentPages from './content.pages.ts';
import type { EditableNamespace } from './editor-paths.ts';

const pages = lazyService<typeof ContentPages>(() => import('./content.pages.ts'));

const segment = z.string().check(z.minLength(1), z.maxLength(512));
const idText = z.string().check(z.regex(/^[1-9]\d{0,14}$/));

/**
 * `/Wiki/<title>`, `/c/<title>`, `/Info/<title>`, `/Item/<title>`: the page, as GET
 * /wikis/{namespace}/{title} shows it (each route declares its own literal path for the index).
 */
function wikiPage(namespace: EditableNamespace) {
  return {
    site: true,
    page: true,
    auth: 'public' as const,
    plusAsSpace: true,
    summary: `The ${namespace} wiki page at its url, as HTML`,
    params: z.object({ title: segment }),
    handler: ({ caller, params }: { caller: Caller | null; params: { title: string } }) =>
      pages.wikiPage(namespace, caller, params.title),
  };
}

export const contentRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/',
    site: true,
    page: true,
    auth: 'public',
    summary: "The site's home page: its collections and top categories, where the header links and a login return",
    handler: ({ caller }) => pages.homePage(caller),
  }),
  route({
    method: 'GET',
    path: '/Guide/{title}/{guideid}',
    site: true,
    page: true,
    auth: 'public',
    plusAsSpace: true,
    summary: "A guide's page (its `url`), or with `.pdf` after the id the guide as a PDF",
    description:
      "With the id first and anything after it (`/Guide/<guideid>/x`, what Dozuki's load-test harness opens): " +
      "301 to the guide's url, for a reader who may see it, as `/Guide/{guideid}`.",
    params: z.object({ title: segment, guideid: segment }),
    handler: ({ caller, params }) => {
      if (/^[1-9]\d{0,14}(\.pdf)?$/.test(params.guideid))
        return pages.guidePage(
          caller,
          Number.parseInt(params.guideid, 10),
          `/Guide/${urlSlug(params.title)}/${params.guideid}`,
        );
      if (!idText.safeParse(params.title).success) throw new NotFoundError('No such guide');
      return pages.guideRedirect(caller, params.title, `/Guide/${params.title}/${urlSlug(params.guideid)}`);
    },
  }),
  route({
    method: 'GET',
    path: '/Guide/{guideid}',
    site: true,
    page: true,
    auth: 'public',
    summary: 'A guide by id alone (the links wiki text makes): 301 to its url, for a reader who may see it',
    params: z.object({ guideid: idText }),
    handler: ({ caller, params }) => pages.guideRedirect(caller, params.guideid, `/Guide/${params.guideid}`),
  }),
  route({
    method: 'GET',
    path: '/Wiki/{title}',
    ...wikiPage('WIKI'),
  }),
  route({
    method: 'GET',
    path: '/c/{title}',
    ...wikiPage('CATEGORY'),
  }),
  route({
    method: 'GET',
    path: '/Info/{title}',
    ...wikiPage('INFO'),
  }),
  route({
    method: 'GET',
    path: '/Item/{title}',
    ...wikiPage('ITEM'),
  }),
  route({
    method: 'GET',
    path: '/Course/{title}',
    site: true,
    page: true,
    auth: 'public',
    plusAsSpace: true,
    summary: "A COURSE wiki page's url: 302 to the course's page",
    params: z.object({ title: segment }),
    handler: ({ caller, params }) => pages.courseWikiRedirect(caller, params.title),
  }),
  route({
    method: 'GET',
    path: '/Courses/View/{wikiid}',
    site: true,
    page: true,
    auth: 'public',
    summary: "A course's page: its stages, each with the reader's own status when it is assigned to them",
    params: z.object({ wikiid: idText }),
    handler: ({ caller, params }) => pages.coursePage(caller, Number(params.wikiid)),
  }),
  route({
    method: 'GET',
    path: '/Courses/Edit/{wikiid}',
    site: true,
    page: true,
    auth: 'public',
    summary: "A course's `editUrl`: courses are edited through the API, so 302 to the course's page",
    params: z.object({ wikiid: idText }),
    handler: ({ caller, params }) => pages.courseEditRedirect(caller, Number(params.wikiid)),
  }),
  route({
    method: 'GET',
    path: '/User/{userid}/{name}',
    site: true,
    page: true,
    auth: 'public',
    plusAsSpace: true,
    summary: "A user's `url`: a plain page naming them, for signed-in readers (as GET /users/{userid})",
    params: z.object({ userid: idText, name: segment }),
    handler: ({ caller, params }) => pages.userPage(caller, Number(params.userid), params.name),
  }),
  route({
    method: 'GET',
    path: '/Team/Contributions/{teamid}/{name}',
    site: true,
    page: true,
    auth: 'public',
    plusAsSpace: true,
    summary: "A team's `url`: a plain page naming it, for those who may see it (as GET /teams/{teamid})",
    params: z.object({ teamid: z.string().check(z.regex(/^[1-9]\d{0,14}$/)), name: segment }),
    handler: ({ caller, params }) => pages.teamPage(caller, Number(params.teamid), params.name),
  }),
];
