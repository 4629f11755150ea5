/**
 * A course's page: its description and its stages in order, each linking to its document, with
 * the reader's own status on it when the course is assigned to them (the same view as GET
 * /courses/{wikiid}; shared/training/course-pages.ts).
 */
import type { CourseView } from '../../../shared/views/course-views.ts';
import { html, type SafeHtml } from '../html/html.ts';
import { linkOrText, sanitized } from './rendered.ts';

const STATUS_WORDS: Record<string, string> = {
  pending: 'Not started',
  started: 'In progress',
  completed: 'Completed',
  expired: 'Expired',
  invalidated: 'To do again',
  blocked: 'Blocked',
};

type CourseStage = CourseView['stages'][number];

function stageItem(stage: CourseStage, assigned: boolean, siteUrl: string): SafeHtml {
  const status = stage.stage_status?.status ?? stage.status;
  return html`<li>${linkOrText(stage.title, stage.doc_url, siteUrl)}${
    assigned ? html` — <span class="status">${status ? (STATUS_WORDS[status] ?? status) : 'Not started'}</span>` : ''
  }</li>`;
}

export function courseContent(course: CourseView, siteUrl: string): SafeHtml {
  const assigned = course.stages.some((stage) => stage.status !== null);
  return html`<article class="course" lang="${course.langid}">
<h1>${course.title}</h1>
${course.enabled ? '' : html`<p class="notice">This course is disabled.</p>`}
<div class="contents">${sanitized(course.contents_rendered)}</div>
<section aria-labelledby="h-stages"><h2 id="h-stages">Stages</h2>
${assigned ? '' : html`<p class="meta">This course is not assigned to you.</p>`}
<ol class="stages">${course.stages.map((stage) => stageItem(stage, assigned, siteUrl))}</ol>
</section>
</article>`;
}
