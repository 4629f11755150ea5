/**
 * The learner's home (`/Manage`, decision 299): my courses with their stages' status and due
 * dates, the training modules to play, the acknowledgements waiting for my signature (each with
 * a sign form: my password, the e-signature POST /acknowledgements/{releaseid}/sign makes), my
 * levels with their expiry, and for a team's owner the team's matrix with what is overdue.
 */
import { CSRF_FIELD } from '../../../shared/http/session.ts';
import type { HomeCourse, LearnerHome, TeamChoice, TeamMatrix } from '../learner-home.service.ts';
import { html, type SafeHtml } from '../html/html.ts';
import { dateText, section } from './rendered.ts';

const ROW_WORDS = { not_started: 'Not started', in_progress: 'In progress', completed: 'Completed' } as const;
const STAGE_WORDS: Record<string, string> = {
  pending: 'Not started',
  started: 'In progress',
  completed: 'Completed',
  expired: 'Expired',
  invalidated: 'To do again',
  blocked: 'Blocked',
};

function due(date: number | null, overdue: boolean): SafeHtml {
  if (date === null) return html`<span class="meta">No due date</span>`;
  return overdue ? html`<span class="overdue">Overdue since ${dateText(date)}</span>` : html`Due ${dateText(date)}`;
}

function courseBlock(course: HomeCourse): SafeHtml {
  const stages = course.stages.map((stage) => {
    const play = stage.doctype === 'external_training_module' && stage.status !== 'completed';
    return html`<li><a href="${stage.path}">${play ? `Play: ${stage.title}` : stage.title}</a> — <span class="status">${
      STAGE_WORDS[stage.status] ?? stage.status
    }</span></li>`;
  });
  return html`<article class="course-card" aria-labelledby="course-${course.wikiid}">
<h3 id="course-${course.wikiid}"><a href="${course.path}">${course.title}</a></h3>
<p><span class="status">${ROW_WORDS[course.status]}</span> · ${course.completed} of ${course.total} stages · ${due(
    course.due_date,
    course.overdue,
  )}</p>
${stages.length > 0 ? html`<ol class="stages">${stages}</ol>` : ''}
</article>`;
}

/** What is overdue in a team, member by member: courses past their due date, late acknowledgements. */
function overdueList(team: TeamMatrix): SafeHtml {
  const items = team.members.flatMap((member) => [
    ...team.courses.flatMap((course) => {
      const cell = member.cells[course.wikiid];
      return cell?.overdue ? [html`<li>${member.username}: ${course.title}, due ${dateText(cell.due_date)}</li>`] : [];
    }),
    ...(member.overdueAcknowledgements > 0
      ? [
          html`<li>${member.username}: ${member.overdueAcknowledgements} ${
            member.overdueAcknowledgements === 1 ? 'acknowledgement' : 'acknowledgements'
          } not signed in time</li>`,
        ]
      : []),
  ]);
  return items.length > 0 ? html`<h4>Overdue</h4><ul class="overdue-items">${items}</ul>` : html``;
}

function teamBlock(team: TeamMatrix): SafeHtml {
  const header = team.courses.map((course) => html`<th scope="col">${course.title}</th>`);
  const rows = team.members.map((member) => {
    const cells = team.courses.map((course) => {
      const cell = member.cells[course.wikiid];
      if (!cell) return html`<td class="meta">—</td>`;
      return html`<td${cell.overdue ? html` class="overdue"` : ''}>${ROW_WORDS[cell.status]}${
        cell.overdue ? html` (overdue ${dateText(cell.due_date)})` : ''
      }</td>`;
    });
    const acks = member.overdueAcknowledgements;
    return html`<tr><th scope="row">${member.username}</th>${cells}<td${acks > 0 ? html` class="overdue"` : ''}>${
      acks > 0 ? `${acks} overdue` : 'None overdue'
    }</td></tr>`;
  });
  const late = team.overdue + team.overdueAcknowledgements;
  return html`<article aria-labelledby="team-${team.teamid}"><h3 id="team-${team.teamid}">${team.name}</h3>
<p>${team.members.length} ${team.members.length === 1 ? 'member' : 'members'}${
    team.truncated ? ' (the first ones)' : ''
  } · ${
    late === 0
      ? 'nothing overdue'
      : html`<span class="overdue">${team.overdue} ${team.overdue === 1 ? 'course' : 'courses'} and ${
          team.overdueAcknowledgements
        } ${team.overdueAcknowledgements === 1 ? 'acknowledgement' : 'acknowledgements'} overdue</span>`
  }</p>
<div class="scroll" role="region" aria-label="${`${team.name}: members by course`}" tabindex="0"><table>
<caption>Members by course</caption><thead><tr><th scope="col">Member</th>${header}\
<th scope="col">Acknowledgements</th></tr></thead><tbody>${rows}</tbody>
</table></div>
${team.courses.length === 0 ? html`<p>No course is assigned to its members.</p>` : ''}
${overdueList(team)}</article>`;
}

/** A GET form opening the matrix of another team the reader manages. */
function teamPicker(choices: TeamChoice[], chosen: number | undefined): SafeHtml {
  if (choices.length === 0) return html``;
  return html`<form method="get" action="/Manage" class="filters">
<label for="team-choice">Show the team</label>
<select id="team-choice" name="team">${choices.map(
    (team) =>
      html`<option value="${team.teamid}"${team.teamid === chosen ? html` selected` : ''}>${team.name}</option>`,
  )}</select>
<button type="submit">Show</button>
</form>`;
}

export interface HomeNotice {
  /** The acknowledgement just signed, or the one whose form had a problem, with the problem. */
  signed?: number;
  problem?: { releaseid: number; message: string };
}

export function learnerHomeContent(home: LearnerHome, csrf: string, notice: HomeNotice): SafeHtml {
  const acknowledgements = home.acknowledgements.map((ack) => {
    const problem = notice.problem?.releaseid === ack.releaseid ? notice.problem.message : undefined;
    const field = `password-${ack.releaseid}`;
    return html`<li class="ack"><p>${ack.url ? html`<a href="${ack.url}">${ack.title}</a>` : ack.title} · release ${
      ack.version
    } · ${due(ack.due_date, ack.overdue)}</p>
<p><a class="review-link" href="/Manage/acknowledgements/${ack.releaseid}">What changed in release ${
      ack.version
    }, and sign</a></p>
<form method="post" action="/Manage/acknowledgements/${ack.releaseid}/sign" class="filters">
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
<label for="${field}">Your password, to sign that you have read and understood it</label>
<input id="${field}" type="password" name="password" autocomplete="current-password"${
      problem ? html` aria-invalid="true" aria-describedby="${field}-problem"` : ''
    }>
${problem ? html`<p id="${field}-problem" class="overdue" role="alert">${problem}</p>` : ''}
<button type="submit">Sign</button>
</form></li>`;
  });
  const levels = home.levels.map(
    (level) =>
      html`<tr><th scope="row">${level.skill}</th><td>${level.level} · ${level.name}</td><td>${
        level.expires_at === null
          ? 'Does not expire'
          : level.expired
            ? html`<span class="overdue">Expired ${dateText(level.expires_at)}</span>`
            : html`Expires ${dateText(level.expires_at)}`
      }</td></tr>`,
  );
  return html`<h1>My training</h1>
${notice.signed ? html`<p class="notice" role="status">Signed. Thank you.</p>` : ''}
${section(
  'my-courses',
  'My courses',
  home.courses.length > 0 ? home.courses.map(courseBlock) : html`<p>No course is assigned to you.</p>`,
)}
${section(
  'to-sign',
  'Acknowledgements to sign',
  acknowledgements.length > 0
    ? html`<ul class="results">${acknowledgements}</ul>`
    : html`<p>Nothing is waiting for your signature.</p>`,
)}
${section(
  'my-levels',
  'My levels',
  levels.length > 0
    ? html`<div class="scroll"><table><thead><tr><th scope="col">Skill</th><th scope="col">Level</th>\
<th scope="col">Expiry</th></tr></thead><tbody>${levels}</tbody></table></div>`
    : html`<p>You hold no level yet.</p>`,
)}
${
  home.teams.length > 0 || home.teamChoices.length > 0
    ? section('my-teams', 'My teams', [teamPicker(home.teamChoices, home.chosenTeam), ...home.teams.map(teamBlock)])
    : ''
}`;
}
