/**
 * One acknowledgement of the reader's (`/Manage/acknowledgements/<releaseid>`, decision 331): the
 * release, what changed since the release they last signed or completed (steps added, removed,
 * moved and changed, with their lines; a wiki page's lines), and the sign form (their password:
 * the e-signature POST /acknowledgements/{releaseid}/sign makes). Every change is said in words
 * as well as shown by colour, so a screen reader and a black-and-white print keep it.
 */
import type { LineChange, StepChange } from '../../../shared/domain/revision-diff.ts';
import { CSRF_FIELD } from '../../../shared/http/session.ts';
import { html, type SafeHtml } from '../html/html.ts';
import type { AcknowledgementReview } from '../learner-home.service.ts';
import { dateText, section } from './rendered.ts';

const LINE_WORDS = { added: 'Added', removed: 'Removed', same: 'Unchanged' } as const;

function lineList(lines: LineChange[]): SafeHtml {
  if (lines.length === 0) return html``;
  const items = lines.map((line) => {
    const text = line.text.trim() === '' ? '(empty line)' : line.text;
    if (line.op === 'same') return html`<li class="diff-same">${text}</li>`;
    const tag =
      line.op === 'added'
        ? html`<ins><span class="diff-word">${LINE_WORDS.added}: </span>${text}</ins>`
        : html`<del><span class="diff-word">${LINE_WORDS.removed}: </span>${text}</del>`;
    return html`<li class="diff-${line.op}">${tag}</li>`;
  });
  return html`<ul class="diff-lines">${items}</ul>`;
}

function stepHeading(change: StepChange): string {
  switch (change.change) {
    case 'added':
      return `Step ${change.new_position}: ${change.title} (added)`;
    case 'removed':
      return `Step ${change.old_position}: ${change.title} (removed)`;
    case 'moved':
      return `Step ${change.new_position}: ${change.title} (moved from step ${change.old_position})`;
    default:
      return change.old_position !== change.new_position
        ? `Step ${change.new_position}: ${change.title} (changed, moved from step ${change.old_position})`
        : `Step ${change.new_position}: ${change.title} (changed)`;
  }
}

function stepChange(change: StepChange): SafeHtml {
  const images = [
    change.images_added?.length
      ? `${change.images_added.length} ${change.images_added.length === 1 ? 'image' : 'images'} added`
      : '',
    change.images_removed?.length
      ? `${change.images_removed.length} ${change.images_removed.length === 1 ? 'image' : 'images'} removed`
      : '',
  ].filter(Boolean);
  return html`<li class="diff-step diff-step-${change.change}"><h3>${stepHeading(change)}</h3>
${change.title_before ? html`<p>Title before: ${change.title_before}</p>` : ''}
${lineList(change.lines ?? [])}
${images.length > 0 ? html`<p class="meta">${images.join(', ')}</p>` : ''}</li>`;
}

function changes(review: AcknowledgementReview): SafeHtml {
  const since = review.base_version
    ? html`<p>Since release ${review.base_version}, the one you last signed or completed.</p>`
    : html`<p>You have not signed or completed an earlier release: all of it is shown as new.</p>`;
  const diff = review.diff;
  if ('steps' in diff && diff.steps) {
    return html`${since}${
      diff.steps.length === 0
        ? html`<p>No step changed.</p>`
        : html`<ol class="diff-steps">${diff.steps.map(stepChange)}</ol>`
    }`;
  }
  const lines = ('lines' in diff ? diff.lines : undefined) ?? [];
  const changed = lines.some((line) => line.op !== 'same');
  return html`${since}${changed ? lineList(lines) : html`<p>The text did not change.</p>`}`;
}

export function acknowledgementContent(
  review: AcknowledgementReview,
  csrf: string,
  problem: string | undefined,
): SafeHtml {
  const field = `password-${review.releaseid}`;
  const due = review.overdue
    ? html`<span class="overdue">Overdue since ${dateText(review.due_date)}</span>`
    : html`Due ${dateText(review.due_date)}`;
  const signForm =
    review.status === 'pending'
      ? html`<form method="post" action="/Manage/acknowledgements/${review.releaseid}/sign" class="filters">
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
<input type="hidden" name="from" value="review">
<label for="${field}">Your password, to sign that you have read and understood release ${review.version}</label>
<input id="${field}" type="password" name="password" autocomplete="current-password"${
          problem ? html` aria-invalid="true" aria-describedby="${field}-problem"` : ''
        }>
${problem ? html`<p id="${field}-problem" class="overdue" role="alert">${problem}</p>` : ''}
<button type="submit">Sign</button>
</form>`
      : review.status === 'signed'
        ? html`<p class="notice">You signed this release on ${dateText(review.signed_date)}.</p>`
        : html`<p class="notice">Nothing to sign: you completed this release or a newer one.</p>`;
  return html`<nav class="breadcrumbs" aria-label="Breadcrumbs"><ol><li><a href="/Manage">My training</a></li>
<li>Acknowledgement</li></ol></nav>
<h1>Acknowledge: ${review.title}</h1>
<p>Release ${review.version}${review.status === 'pending' ? html` · ${due}` : ''}${
    review.url ? html` · <a href="${review.url}">Open the document</a>` : ''
  }</p>
${section('what-changed', 'What changed', changes(review))}
${section('sign', 'Sign', signForm)}`;
}
