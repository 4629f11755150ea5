/**
 * Wiki pages and category pages as GET /wikis/{namespace}/{title} shows them
 * (shared/read-models/wiki-pages.ts): the rendered contents, where the page sits in its
 * hierarchy, its child pages and, on a category, the guides filed under it the reader may read.
 */
import { wikiPath } from '../../../shared/domain/wiki-namespaces.ts';
import type { GuideSummary } from '../../../shared/views/guide-views.ts';
import type { WikiView } from '../../../shared/views/wiki-views.ts';
import { html, type SafeHtml } from '../html/html.ts';
import { dateText, imageSource, sanitized, section } from './rendered.ts';

function titleLinks(view: WikiView, titles: string[] | undefined): SafeHtml[] {
  return (titles ?? []).map(
    (title) => html`<li><a href="${wikiPath({ namespace: view.namespace, title })}">${title}</a></li>`,
  );
}

function guideCards(guides: GuideSummary[]): SafeHtml {
  return html`<ul class="guide-list">${guides.map((guide) => {
    const src = imageSource(guide.image, 'standard');
    // The link's text names the guide; the picture beside it adds nothing to read (alt="").
    return html`<li><a href="${guide.url}">${src ? html`<img src="${src}" alt="" width="300">` : ''}${guide.title}</a>${
      guide.summary ? html`<br><span class="meta">${guide.summary}</span>` : ''
    }</li>`;
  })}</ul>`;
}

export interface CategoryParts {
  guides: GuideSummary[];
}

export function wikiContent(view: WikiView, category?: CategoryParts): SafeHtml {
  const ancestors = titleLinks(view, view.ancestors);
  const children = titleLinks(view, view.children);
  const childHeading = view.namespace === 'CATEGORY' ? 'Categories' : 'Pages';
  return html`<article class="wiki" lang="${view.langid}">
${ancestors.length > 0 ? html`<nav class="breadcrumbs" aria-label="Breadcrumbs"><ol>${ancestors}</ol></nav>` : ''}
<h1>${view.display_title || view.title}</h1>
<p class="meta">${view.author ? html`By ${view.author.username} · ` : ''}Updated ${dateText(view.modified_date)}</p>
${view.description ? html`<p>${view.description}</p>` : ''}
<div class="contents">${sanitized(view.contents_rendered)}</div>
${
  category
    ? html`<section aria-labelledby="h-guides"><h2 id="h-guides">Guides</h2>${
        category.guides.length > 0 ? guideCards(category.guides) : html`<p>No guides here yet.</p>`
      }</section>`
    : ''
}
${children.length > 0 ? section('children', childHeading, html`<ul>${children}</ul>`) : ''}
</article>`;
}
