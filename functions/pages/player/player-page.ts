/**
 * The player page's content (decision 306): the module's SCO list (a TOC with previous/next and
 * choice when there are several), and the runtime host framed from the content origin. The
 * launch (what player.js hands the host) rides in a data attribute, escaped like any attribute.
 */
import type { ModulePlayerView } from '../../../shared/views/module-views.ts';
import { html, type SafeHtml } from '../html/html.ts';

type Sco = ModulePlayerView['scos'][number];

export interface PlayerPage {
  moduleid: number;
  title: string;
  mode: 'learner' | 'preview';
  scos: Sco[];
  current: Sco;
  previous: Sco | undefined;
  next: Sco | undefined;
  /** SCOs the TOC links (the manifest's choice control modes, decision 325); others are listed without a link. */
  choosable: ReadonlySet<string>;
  hostUrl: string;
  launch: Record<string, unknown>;
}

/** A SCO's link on the page: the page again with that SCO chosen. */
export function scoHref(moduleid: number, identifier: string): string {
  return `/ExternalTrainingModule/${moduleid}?sco=${encodeURIComponent(identifier)}`;
}

function tocItem(page: PlayerPage, sco: Sco): SafeHtml {
  const depth = `depth-${Math.min(sco.depth, 2)}`;
  if (!sco.launch) return html`<li class="${depth}"><span class="group">${sco.title}</span></li>`;
  const current = sco.identifier === page.current.identifier;
  if (!page.choosable.has(sco.identifier))
    return html`<li class="${depth}"><span class="locked"${
      current ? html` aria-current="page"` : ''
    }>${sco.title}</span></li>`;
  return html`<li class="${depth}"><a data-sco-link href="${scoHref(page.moduleid, sco.identifier)}"${
    current ? html` aria-current="page"` : ''
  }>${sco.title}</a></li>`;
}

function navLink(page: PlayerPage, sco: Sco | undefined, label: string, rel: string): SafeHtml {
  return sco
    ? html`<a data-sco-link rel="${rel}" href="${scoHref(page.moduleid, sco.identifier)}">${label}</a>`
    : html`<span></span>`;
}

function navigation(page: PlayerPage): SafeHtml {
  return html`<div class="player-nav">${navLink(page, page.previous, 'Previous', 'prev')} ${navLink(
    page,
    page.next,
    'Next',
    'next',
  )}</div>`;
}

export function playerContent(page: PlayerPage): SafeHtml {
  const several = page.scos.filter((sco) => sco.launch).length > 1;
  const toc = several
    ? html`<nav class="player-toc" aria-label="Contents"><ol>${page.scos
        .filter((sco) => sco.isvisible !== false)
        .map((sco) => tocItem(page, sco))}</ol></nav>`
    : '';
  return html`<link rel="stylesheet" href="/player/player.css">
<h1>${page.title}</h1>
${page.mode === 'preview' ? html`<p class="player-preview">Preview: nothing you do here is kept.</p>` : ''}
<div id="player" class="player${several ? '' : ' single'}" data-launch="${JSON.stringify(page.launch)}">
${toc}
<section class="player-stage" aria-label="${page.current.title}">
${several ? navigation(page) : ''}
<iframe id="player-runtime" title="${page.current.title}" src="${page.hostUrl}" allow="fullscreen; autoplay"></iframe>
<p id="player-status" class="player-status" role="status" aria-live="polite"></p>
</section>
</div>
<script src="/player/player.js"></script>`;
}
