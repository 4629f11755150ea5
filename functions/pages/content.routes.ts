/**
 * The pages the API's `url`s open (issue 27): a guide (and its PDF), wiki and category pages, a
 * course, and the plain pages of users and teams. Each reads through the same read-model and
 * access rule as the API's GET of the same thing, and answers what that GET would refuse with the
 * login page (anonymous) or the 404 page (html/page-reply.ts). Every route is `public` so that the
 * page, not the router's JSON 401, answers an anonymous reader; the handlers ask for a signed-in
 * reader where the API does.
 */
import * as z from 'zod/mini';
import { config, siteUrl } from '../../shared/config.ts';
import { hasRole, isAdmin, type Caller } from '../../shared/domain/caller.ts';
import { NotFoundError, UnauthenticatedError } from '../../shared/domain/errors.ts';
import { urlSlug } from '../../shared/domain/text.ts';
import { wikiPath } from '../../shared/domain/wiki-namespaces.ts';
import { assertCanViewGuide, canEditGuide } from '../../shared/content/guide-access.ts';
import { requirePage } from '../../shared/content/wiki-pages.ts';
import { latestRelease } from '../../shared/db/entities/release.ts';
import { getTeam } from '../../shared/db/entities/team.ts';
import { getUser } from '../../shared/db/entities/user.ts';
import { listWikiNodes } from '../../shared/db/entities/wiki.ts';
import { route, type RouteDef } from '../../shared/http/route.ts';
import { fullGuide } from '../../shared/read-models/guide-pages.ts';
import { collectionViews } from '../../shared/read-models/collections.ts';
import { listCollections } from '../../shared/db/entities/collection.ts';
import type { CollectionView } from '../../shared/views/collection-views.ts';
import { categoryPage, pageView } from '../../shared/read-models/wiki-pages.ts';
import { courseViewFor, readableCourse } from '../../shared/training/course-pages.ts';
import { coursePath } from '../../shared/views/course-views.ts';
import { guideUrl } from '../../shared/views/guide-views.ts';
import { userUrl } from '../../shared/views/user-views.ts';
import { courseContent } from './content/course-page.ts';
import { guideContent } from './content/guide-page.ts';
import { wikiContent } from './content/wiki-page.ts';
import { dateText, section } from './content/rendered.ts';
import { html } from './html/html.ts';
import { asPage, htmlReply, redirectReply } from './html/page-reply.ts';
import { type EditableNamespace, guideEditorPath, wikiEditorPath } from './editor.routes.ts';

/** The editors' ways in (decision 294), for those the API would let write; nothing for others. */
function editorLinks(links: Array<{ show: boolean; href: string; text: string }>) {
  const shown = links.filter((link) => link.show);
  if (shown.length === 0) return html``;
  return html`<p class="page-actions">${shown.map(
    (link) => html`<a class="edit-link" href="${link.href}">${link.text}</a> `,
  )}</p>`;
}

const segment = z.string().check(z.minLength(1), z.maxLength(512));
const idText = z.string().check(z.regex(/^[1-9]\d{0,14}$/));

function signedIn(caller: Caller | null): Caller {
  if (!caller) throw new UnauthenticatedError('Authentication required');
  return caller;
}

async function guidePage(caller: Caller | null, guideid: number, path: string) {
  return asPage(caller, path, async () => {
    const record = await assertCanViewGuide(caller, guideid);
    const [guide, release] = await Promise.all([
      fullGuide(caller, record, { prerequisiteSteps: false }),
      latestRelease('guide', guideid),
    ]);
    if (path.endsWith('.pdf')) {
      // Loaded on the first PDF only: the HTML pages never pay for the PDF library.
      const { guidePdfReply } = await import('./pdf/guide-pdf-reply.ts');
      return guidePdfReply(caller, guide, release);
    }
    return htmlReply(200, {
      title: guide.title,
      caller,
      path,
      lang: guide.langid,
      content: html`${editorLinks([
        { show: canEditGuide(caller, record), href: guideEditorPath(guideid), text: 'Edit this guide' },
      ])}
${guideContent(guide, release, siteUrl())}`,
    });
  });
}

/** 301 to a guide's url, for a reader who may see it (a closed page sends others to log in). */
function guideRedirect(caller: Caller | null, guideid: string, path: string) {
  return asPage(caller, path, async () => {
    const guide = await assertCanViewGuide(caller, Number(guideid));
    return redirectReply(301, guideUrl(siteUrl(), guide), caller);
  });
}

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
    handler: ({ caller, params }: { caller: Caller | null; params: { title: string } }) => {
      const path = wikiPath({ namespace, title: params.title });
      return asPage(caller, path, async () => {
        const wiki = await requirePage(namespace, params.title);
        const category = namespace === 'CATEGORY' ? await categoryPage(caller, wiki) : undefined;
        const view = category ?? (await pageView(wiki, caller));
        return htmlReply(200, {
          title: view.display_title || view.title,
          caller,
          path,
          lang: view.langid,
          content: html`${editorLinks([
            {
              show: namespace === 'CATEGORY' && hasRole(caller, 'Author'),
              href: guideEditorPath('new', wiki.title),
              text: 'New guide in this category',
            },
            {
              show: hasRole(caller, 'Author'),
              href: wikiEditorPath(namespace, wiki.title),
              text: 'Edit this page',
            },
          ])}
${wikiContent(view, category && { guides: category.guides })}`,
        });
      });
    },
  };
}

/** A link to a category page, by its tree node. */
function categoryLink(node: { title: string; display_title: string }) {
  const href = wikiPath({ namespace: 'CATEGORY', title: node.title });
  return html`<li><a href="${href}">${node.display_title || node.title}</a></li>`;
}

/** How many collections the home page shows, newest first (decision 281). */
const HOME_COLLECTIONS = 20;

/** A collection on the home page: its title, date, description and the guides the reader may read. */
function collectionBlock(collection: CollectionView) {
  const guides = collection.guides.map(
    (guide) => html`<li><a href="${new URL(guide.url).pathname}">${guide.title}</a></li>`,
  );
  return html`<article class="collection"><h3>${collection.title}</h3> ${dateText(collection.date)}
${collection.description ? html`<p>${collection.description}</p>` : html``}
${guides.length > 0 ? html`<ul>${guides}</ul>` : html`<p>No guides here yet.</p>`}</article>`;
}

export const contentRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/',
    site: true,
    page: true,
    auth: 'public',
    summary: "The site's home page: its collections and top categories, where the header links and a login return",
    handler: ({ caller }) =>
      asPage(caller, '/', async () => {
        const [nodes, featured] = await Promise.all([
          listWikiNodes('CATEGORY'),
          collectionViews(caller, await listCollections({ limit: HOME_COLLECTIONS, offset: 0 })),
        ]);
        const roots = nodes
          .filter((node) => !node.parent_wikiid)
          .sort((a, b) => a.display_title.localeCompare(b.display_title));
        return htmlReply(200, {
          title: 'Home',
          caller,
          path: '/',
          content: html`<h1>${config().STEPWISE_SITE_NAME}</h1>
${featured.length > 0 ? section('collections', 'Collections', featured.map(collectionBlock)) : html``}
${section(
  'categories',
  'Categories',
  roots.length > 0 ? html`<ul>${roots.map(categoryLink)}</ul>` : html`<p>No categories yet.</p>`,
)}`,
        });
      }),
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
        return guidePage(
          caller,
          Number.parseInt(params.guideid, 10),
          `/Guide/${urlSlug(params.title)}/${params.guideid}`,
        );
      if (!idText.safeParse(params.title).success) throw new NotFoundError('No such guide');
      return guideRedirect(caller, params.title, `/Guide/${params.title}/${urlSlug(params.guideid)}`);
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
    handler: ({ caller, params }) => guideRedirect(caller, params.guideid, `/Guide/${params.guideid}`),
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
    handler: ({ caller, params }) =>
      asPage(caller, wikiPath({ namespace: 'COURSE', title: params.title }), async () => {
        const reader = signedIn(caller);
        const wiki = await requirePage('COURSE', params.title);
        await readableCourse(reader, wiki.wikiid);
        return redirectReply(302, coursePath(wiki.wikiid), caller);
      }),
  }),
  route({
    method: 'GET',
    path: '/Courses/View/{wikiid}',
    site: true,
    page: true,
    auth: 'public',
    summary: "A course's page: its stages, each with the reader's own status when it is assigned to them",
    params: z.object({ wikiid: idText }),
    handler: ({ caller, params }) => {
      const path = coursePath(Number(params.wikiid));
      return asPage(caller, path, async () => {
        const reader = signedIn(caller);
        const course = await courseViewFor(reader, await readableCourse(reader, Number(params.wikiid)));
        return htmlReply(200, {
          title: course.title,
          caller,
          path,
          lang: course.langid,
          content: courseContent(course, siteUrl()),
        });
      });
    },
  }),
  route({
    method: 'GET',
    path: '/Courses/Edit/{wikiid}',
    site: true,
    page: true,
    auth: 'public',
    summary: "A course's `editUrl`: courses are edited through the API, so 302 to the course's page",
    params: z.object({ wikiid: idText }),
    handler: ({ caller, params }) =>
      asPage(caller, `/Courses/Edit/${params.wikiid}`, async () => {
        await readableCourse(signedIn(caller), Number(params.wikiid));
        return redirectReply(302, coursePath(Number(params.wikiid)), caller);
      }),
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
    handler: ({ caller, params }) => {
      const path = `/User/${params.userid}/${urlSlug(params.name)}`;
      return asPage(caller, path, async () => {
        signedIn(caller);
        const user = await getUser(Number(params.userid));
        if (!user) throw new NotFoundError('No such user');
        return htmlReply(200, {
          title: user.username,
          caller,
          path,
          content: html`<h1>${user.username}</h1>
<p class="meta">${user.unique_username ? `@${user.unique_username} · ` : ''}Member since ${dateText(user.join_date)}</p>
<p><a href="${userUrl(siteUrl(), user)}">Link to this profile</a></p>`,
        });
      });
    },
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
    handler: ({ caller, params }) => {
      const path = `/Team/Contributions/${params.teamid}/${urlSlug(params.name)}`;
      return asPage(caller, path, async () => {
        const reader = signedIn(caller);
        const team = await getTeam(Number(params.teamid));
        const visible =
          team &&
          (team.privacy === 'public' ||
            isAdmin(reader) ||
            team.owner === reader.userid ||
            reader.teams.includes(team.teamid));
        if (!visible) throw new NotFoundError('No such team');
        return htmlReply(200, {
          title: team.name,
          caller,
          path,
          content: html`<h1>${team.name}</h1>
${team.description ? html`<p>${team.description}</p>` : ''}
<p class="meta">${team.member_count} ${team.member_count === 1 ? 'member' : 'members'}</p>`,
        });
      });
    },
  }),
];
