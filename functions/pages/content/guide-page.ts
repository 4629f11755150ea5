/**
 * The guide's page: the full guide as GET /guides/{guideid} shows it to the same reader
 * (shared/read-models/guide-pages.ts), rendered to HTML. Prerequisites are links (their steps are
 * on their own pages); the release shown is the guide's current one.
 */
import type { CurrentRelease } from '../../../shared/db/entities/release.ts';
import type { FullGuideView, StepView } from '../../../shared/views/guide-views.ts';
import { html, type SafeHtml } from '../html/html.ts';
import { dateText, imageSource, linkOrText, linkUrl, sanitized, section } from './rendered.ts';

type GuideItem = FullGuideView['tools'][number];
type StepLine = StepView['lines'][number];

/**
 * Icon bullets are safety callouts: a box in their colour with an icon (inline SVG, drawn in the
 * text's colour, hidden from screen readers) and their word, so that neither a screen reader nor
 * a black-and-white print loses them.
 */
const OUTLINE = html`fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round"`;
const CALLOUTS: Record<string, { word: string; kind: string; icon: SafeHtml }> = {
  icon_note: {
    word: 'Note',
    kind: 'note',
    icon: svgIcon(html`<circle cx="12" cy="12" r="10" ${OUTLINE}/>
<path d="M11 10h2v7h-2zM11 6.5h2v2h-2z" fill="currentColor"/>`),
  },
  icon_caution: {
    word: 'Caution',
    kind: 'caution',
    icon: svgIcon(html`<path d="M12 2.5 1.5 21h21z" ${OUTLINE}/>
<path d="M11 9h2v6h-2zM11 16.5h2v2h-2z" fill="currentColor"/>`),
  },
  icon_reminder: {
    word: 'Reminder',
    kind: 'reminder',
    icon: svgIcon(html`<path d="M12 3a6 6 0 0 0-6 6v4l-2 3h16l-2-3V9a6 6 0 0 0-6-6z" ${OUTLINE}/>
<path d="M9.5 18a2.5 2.5 0 0 0 5 0z" fill="currentColor"/>`),
  },
};

function svgIcon(paths: SafeHtml): SafeHtml {
  return html`<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">${paths}</svg>`;
}

function line(entry: StepLine): SafeHtml {
  const callout = CALLOUTS[entry.bullet];
  const level = Math.max(0, Math.min(5, entry.level));
  if (callout) {
    const word = html`<span class="line-icon">${callout.word}: </span>`;
    const classes = `callout callout-${callout.kind} bullet-${entry.bullet} level-${level}`;
    return html`<li class="${classes}">${callout.icon}<div>${word}${sanitized(entry.text_rendered)}</div></li>`;
  }
  return html`<li class="bullet-${entry.bullet} level-${level}">${sanitized(entry.text_rendered)}</li>`;
}

/** Step media: images (alt from the step's title), a video with its poster, or an embed as a link. */
function stepMedia(step: StepView, label: string, siteUrl: string): SafeHtml {
  const media = step.media;
  if (media.type === 'image') {
    const images = media.data.flatMap((image, index) => {
      const src = imageSource(image, 'medium');
      if (!src) return [];
      const alt = media.data.length > 1 ? `${label}, image ${index + 1} of ${media.data.length}` : label;
      return [html`<figure><img src="${src}" alt="${alt}" loading="lazy"></figure>`];
    });
    return images.length > 0 ? html`<div class="step-media">${images}</div>` : html``;
  }
  if (media.type === 'video') {
    const video = media.data;
    if (!('encodings' in video) || video.encodings.length === 0) return html``;
    const poster = imageSource(video.image?.image, 'medium');
    const sources = video.encodings.map((encoding) => html`<source src="${encoding.url}" type="${encoding.mime}">`);
    return html`<div class="step-media"><video controls preload="none" aria-label="${`${label}, video`}"${
      poster ? html` poster="${poster}"` : ''
    }>${sources}<a href="${video.encodings[0]!.url}">${video.filename}</a></video></div>`;
  }
  const embed = media.data;
  if (!('url' in embed)) return html``;
  const link = linkOrText(embed.title || embed.url, embed.url, siteUrl);
  return html`<p class="step-media">Embedded ${embed.type}: ${link}${
    embed.provider_name ? html` (${embed.provider_name})` : ''
  }</p>`;
}

function stepSection(step: StepView, number: number, siteUrl: string): SafeHtml {
  const heading = step.title ? `Step ${number}: ${step.title}` : `Step ${number}`;
  return html`<section class="step" id="s${step.stepid}" aria-labelledby="h-s${step.stepid}">
<h2 id="h-s${step.stepid}">${heading}</h2>
${stepMedia(step, heading, siteUrl)}
${step.lines.length > 0 ? html`<ul class="lines">${step.lines.map(line)}</ul>` : ''}
</section>`;
}

function items(title: string, list: GuideItem[], siteUrl: string): SafeHtml {
  if (list.length === 0) return html``;
  return html`<section aria-labelledby="h-${title}"><h2 id="h-${title}">${title}</h2><ul>${list.map(
    (item) =>
      html`<li>${item.quantity > 1 ? `${item.quantity} × ` : ''}${linkOrText(item.text, item.url, siteUrl)}${
        item.isoptional ? ' (optional)' : ''
      }${item.notes ? html` <span class="meta">${item.notes}</span>` : ''}</li>`,
  )}</ul></section>`;
}

function documents(guide: FullGuideView, siteUrl: string): SafeHtml {
  const shown = guide.documents.flatMap((document) => ('filename' in document && document.url ? [document] : []));
  if (shown.length === 0) return html``;
  return html`<section aria-labelledby="h-documents"><h2 id="h-documents">Documents</h2><ul>${shown.map(
    (document) => html`<li><a href="${linkUrl(document.url, siteUrl) ?? ''}">${document.filename}</a></li>`,
  )}</ul></section>`;
}

function releaseLine(guide: FullGuideView, release: CurrentRelease | undefined): SafeHtml {
  if (!release) return html`<p class="meta">Not released yet · revision ${guide.revisionid}</p>`;
  const changed = release.revisionid !== guide.revisionid;
  return html`<p class="meta">Release ${release.version} of ${dateText(release.release_date ?? release.date)}${
    changed ? ` · changed since (revision ${guide.revisionid})` : ''
  }</p>`;
}

/** The page's content (inside <main>). */
export function guideContent(guide: FullGuideView, release: CurrentRelease | undefined, siteUrl: string): SafeHtml {
  const cover = imageSource(guide.image, 'medium');
  const own = guide.steps.filter((step) => step.guideid === guide.guideid);
  const categoryUrl = `${siteUrl}/c/${encodeURIComponent(guide.category.replace(/ /g, '_'))}`;
  return html`<article class="guide" lang="${guide.langid}">
<nav class="breadcrumbs" aria-label="Breadcrumbs"><ol><li><a href="${categoryUrl}">${guide.category}</a></li></ol></nav>
<h1>${guide.title}</h1>
<p class="meta">By ${guide.author.username} · ${guide.type}${guide.difficulty ? ` · ${guide.difficulty}` : ''}${
    guide.time_required ? ` · ${guide.time_required}` : ''
  } · <a class="no-print" href="${guide.url}.pdf">PDF</a></p>
${releaseLine(guide, release)}
${guide.summary ? html`<p>${guide.summary}</p>` : ''}
${cover ? html`<img class="cover" src="${cover}" alt="${guide.title}">` : ''}
${guide.introduction_rendered ? section('intro', 'Introduction', sanitized(guide.introduction_rendered)) : ''}
${
  guide.prerequisites.length > 0
    ? html`<section aria-labelledby="h-prereq"><h2 id="h-prereq">Before you start</h2><ul>${guide.prerequisites.map(
        (prerequisite) => html`<li><a href="${prerequisite.url}">${prerequisite.title}</a></li>`,
      )}</ul></section>`
    : ''
}
<div class="items">${items('Tools', guide.tools, siteUrl)}${items('Parts', guide.parts, siteUrl)}</div>
${documents(guide, siteUrl)}
${own.map((step, index) => stepSection(step, index + 1, siteUrl))}
${guide.conclusion_rendered ? section('conclusion', 'Conclusion', sanitized(guide.conclusion_rendered)) : ''}
</article>`;
}
