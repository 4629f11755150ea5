/**
 * The player page of a cmi5 module (docs/lrs.md, "From the course page"): the course's AUs with
 * what the LMS judged of each in the learner's registration, and per AU a form that launches it
 * (`POST /ExternalTrainingModule/{id}/cmi5`, answered by the xapi group with a 303 to the AU's
 * launch URL). An `OwnWindow` AU replaces the page and comes back by `returnURL`; an `AnyWindow`
 * AU opens in a window of its own, the page staying. A manager's preview lists the AUs only: a
 * launch opens a registration, which is a learner's.
 */
import type { Cmi5Player, Cmi5PlayerAu } from '../../../shared/training/cmi5-player.ts';
import { html, type SafeHtml } from '../html/html.ts';

export interface Cmi5Page {
  moduleid: number;
  title: string;
  mode: 'learner' | 'preview';
  csrf: string;
  player: Cmi5Player;
}

/** What the LMS judged of an AU, in words. */
export function auState(au: Cmi5PlayerAu): string {
  const status = au.status;
  if (!status) return 'Not started';
  if (status.waived) return 'Waived';
  if (status.satisfied) return 'Satisfied';
  if (status.passed) return 'Passed';
  if (status.failed) return 'Failed';
  if (status.completed) return 'Completed';
  return 'Started';
}

function launchForm(page: Cmi5Page, au: Cmi5PlayerAu): SafeHtml {
  if (page.mode !== 'learner') return html``;
  const target = au.launch_method === 'OwnWindow' ? '_self' : '_blank';
  return html`<form method="post" action="/ExternalTrainingModule/${String(page.moduleid)}/cmi5" target="${target}">
<input type="hidden" name="csrf" value="${page.csrf}"><input type="hidden" name="au" value="${au.id}">
<button type="submit">${au.status ? 'Continue' : 'Start'}</button></form>`;
}

function auItem(page: Cmi5Page, au: Cmi5PlayerAu): SafeHtml {
  const state = auState(au);
  return html`<li class="cmi5-au" data-au="${au.id}" data-state="${state.toLowerCase().replace(' ', '-')}">
<span class="cmi5-au-title">${au.block ? html`<span class="cmi5-block">${au.block}:</span> ` : ''}${au.title}</span>
<span class="cmi5-au-state">${state}</span>
${launchForm(page, au)}</li>`;
}

export function cmi5Content(page: Cmi5Page): SafeHtml {
  const done = page.player.course_satisfied;
  return html`<link rel="stylesheet" href="/player/player.css">
<h1>${page.title}</h1>
${page.mode === 'preview' ? html`<p class="player-preview">Preview: only assigned learners launch these.</p>` : ''}
<section id="cmi5-player" class="cmi5-player" data-course-satisfied="${String(done)}" aria-label="${page.player.title}">
<p class="player-status" role="status">${done ? 'Course satisfied: this stage is complete.' : 'Launch each unit.'}</p>
<ol class="cmi5-aus">${page.player.aus.map((au) => auItem(page, au))}</ol>
</section>`;
}
