/**
 * The content pages' handlers (content.routes.ts declares their routes), evaluated with the read
 * models, training rules and renderers only they reach when a content page is first asked for
 * (`lazyService`, decision 349). Each reads through the same read-model and access rule as the
 * API's GET of the same thing, and answers what that GET would refuse with the login page
 * (anonymous) or the 404 page (html/page-reply.ts); the handlers ask for a signed-in reader where
 * the API does.
 */
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
import { type EditableNamespace, guideEditorPath, wikiEditorPath } from './editor-paths.ts';

/** The editors' ways in (decision 294), for those the API would let write; nothing for others. */
function editorLinks(links: Array<{ show: boolean; href: string; text: string }>) {
  const shown = links.filter((link) => link.show);
  if (shown.length === 0) return html``;
  return html`<p class="page-actions">${shown.map(
    (link) => html`<a class="edit-link" href="${link.href}">${link.text}</a> `,
  )}</p>`;
}

function signedIn(caller: Caller | null): Caller {
  if (!caller) throw new UnauthenticatedError('Authentication required');
  return caller;
}

export async function guidePage(caller: Caller | null, guideid: number, path: string) {
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
export function guideRedirect(caller: Caller | null, guideid: string, path: string) {
  return asPage(caller, path, async () => {
    const guide = await assertCanViewGuide(caller, Number(guideid));
    return redirectReply(301, guideUrl(siteUrl(), guide), caller);
  });
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

/** The site's home page: its collections and top categories. */
export function homePage(caller: Caller | null) {
  return asPage(caller, '/', async () => {
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
  });
}

/** `/Wiki/<title>`, `/c/<title>`, `/Info/<title>`, `/Item/<title>`: as GET /wikis/{namespace}/{title} shows it. */
export function wikiPage(namespace: EditableNamespace, caller: Caller | null, title: string) {
  const path = wikiPath({ namespace, title });
  return asPage(caller, path, async () => {
    const wiki = await requirePage(namespace, title);
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
}

/** A COURSE wiki page's url: 302 to the course's page. */
export function courseWikiRedirect(caller: Caller | null, title: string) {
  return asPage(caller, wikiPath({ namespace: 'COURSE', title }), async () => {
    const reader = signedIn(caller);
    const wiki = await requirePage('COURSE', title);
    await readableCourse(reader, wiki.wikiid);
    return redirectReply(302, coursePath(wiki.wikiid), caller);
  });
}

/** A course's page: its stages, each with the reader's own status when it is assigned to them. */
export function coursePage(caller: Caller | null, wikiid: number) {
  const path = coursePath(wikiid);
  return asPage(caller, path, async () => {
    const reader = signedIn(caller);
    const course = await courseViewFor(reader, await readableCourse(reader, wikiid));
    return htmlReply(200, {
      title: course.title,
      caller,
      path,
      lang: course.langid,
      content: courseContent(course, siteUrl()),
    });
  });
}

/** A course's `editUrl`: 302 to the course's page. */
export function courseEditRedirect(caller: Caller | null, wikiid: number) {
  return asPage(caller, `/Courses/Edit/${wikiid}`, async () => {
    await readableCourse(signedIn(caller), wikiid);
    return redirectReply(302, coursePath(wikiid), caller);
  });
}

/** A user's `url`: a plain page naming them, for signed-in readers. */
export function userPage(caller: Caller | null, userid: number, name: string) {
  const path = `/User/${userid}/${urlSlug(name)}`;
  return asPage(caller, path, async () => {
    signedIn(caller);
    const user = await getUser(userid);
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
}

/** A team's `url`: a plain page naming it, for those who may see it. */
export function teamPage(caller: Caller | null, teamid: number, name: string) {
  const path = `/Team/Contributions/${teamid}/${urlSlug(name)}`;
  return asPage(caller, path, async () => {
    const reader = signedIn(caller);
    const team = await getTeam(teamid);
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
}
