/**
 * Course assignments and course assignees (spec: Course assignments, Course assignees and the
 * "Additional endpoints" list). The assignment record of GET/DELETE follows the spec's
 * Course assignment, Stage entry, Stage completion, Stage and Course tables field by field.
 */
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { idParams, pathId } from '../../shared/http/schemas.ts';
import { pagination } from '../../shared/http/query.ts';
import * as assignments from './assignments.service.ts';
import * as assignees from './assignees.service.ts';
import * as progress from './progress.service.ts';
import * as reports from './reports.service.ts';
import { completionSchema } from '../../shared/views/course-views.ts';
import {
  assigneeRowSchema,
  assignmentDetailsSchema,
  assignmentSchema,
  progressChangeSchema,
  teamAssigneeSchema,
  teamSourceSchema,
  userSourceSchema,
} from '../../shared/views/course-assignment-views.ts';
import {
  courseReportSchema,
  courseUserReportSchema,
  teamReportSchema,
  teamSummaryReportSchema,
  teamUserReportSchema,
  userReportSchema,
  userSummaryReportSchema,
} from '../../shared/views/training-report-views.ts';
import {
  assignBody,
  completeBody,
  stageCompletionsBody,
  teamAssigneesQuery,
  teamMembersQuery,
  userAssigneesQuery,
} from './course-assignments.schemas.ts';
import { getCourse } from '../../shared/db/entities/course.ts';
import { getTeam } from '../../shared/db/entities/team.ts';
import { getUser } from '../../shared/db/entities/user.ts';

const id = z.int().check(z.positive());
const ids = z.array(id).check(z.minLength(1), z.maxLength(50));
/** Any segment: an unknown doctype is a 404 from the service, after the body is validated. */
const doctype = z.string().check(z.maxLength(40));
const docParams = z.object({ doctype, docid: pathId });
const listQuery = z.object(pagination);

/** What completeAll / invalidateAll answer: the report after the change and how many documents changed. */
const userChangesSchema = z.object({ ...userReportSchema.shape, changed_documents: z.int() });
const teamChangesSchema = z.object({ ...teamReportSchema.shape, changed_documents: z.int() });
const experimental = { 'x-experimental-fields': ['is_overdue'] };

const exists = {
  course: async (wikiid: number) => Boolean(await getCourse(wikiid)),
  team: async (teamid: number) => Boolean(await getTeam(teamid)),
  user: async (userid: number) => Boolean(await getUser(userid)),
};

export const courseAssignmentsGroup = defineGroup({
  name: 'course-assignments',
  access: { table: 'readwrite', conditionChecks: true },
  routes: [
    route({
      method: 'POST',
      path: '/course_assignments',
      auth: 'user',
      summary:
        'Assign a course to a user or a team (201 with the assignment record); 409 with the active one when ' +
        'already assigned',
      description:
        'Body `{wikiid, userid | teamid, due_within?}` (also `assignee_userid` / `assignee_teamid`); ' +
        '`due_within` in seconds. Admins assign anyone; a team owner assigns the team and its members. ' +
        'A team assignment covers the members it has and those who join later (from when they join); a ' +
        'member who leaves keeps their completions.',
      status: 201,
      body: assignBody,
      example: { wikiid: 1, userid: 2, due_within: 1209600 },
      response: assignmentSchema,
      handler: ({ caller, body }) => assignments.create(caller, body),
    }),
    route({
      method: 'GET',
      path: '/course_assignments/{course_assignmentid}',
      auth: 'user',
      summary:
        'A course assignment record with completion_status per user (its managers; a trainee sees their own entry)',
      description:
        'Stage entries carry `status` and, when the feature flags dev-unify-completion-status-logic and ' +
        'dev-use-status-and-reason are both on, `stage_status` {status, reason} — then the single source of truth.',
      params: idParams('course_assignmentid'),
      response: assignmentSchema,
      handler: ({ caller, params }) => assignments.get(caller, params.course_assignmentid),
    }),
    route({
      method: 'GET',
      path: '/course_assignments/team/{course_assignmentid}',
      auth: 'user',
      deprecated: true,
      summary: 'Deprecated: same as GET /course_assignments/{course_assignmentid}',
      params: idParams('course_assignmentid'),
      response: assignmentSchema,
      handler: ({ caller, params }) => assignments.get(caller, params.course_assignmentid),
    }),
    route({
      method: 'DELETE',
      path: '/course_assignments/{course_assignmentid}',
      auth: 'user',
      summary: 'Cancel an assignment; answers 200 with the record (cancelled = 1); 409 when already cancelled',
      description: "Optional body `{cancellation_reason}`. The trainees' completions and rows stay as records.",
      params: idParams('course_assignmentid'),
      body: z.object({ cancellation_reason: z.optional(z.nullable(z.string().check(z.maxLength(1000)))) }),
      example: { cancellation_reason: 'Replaced by the 2025 course' },
      response: assignmentSchema,
      handler: ({ caller, params, body }) =>
        assignments.cancel(caller, params.course_assignmentid, body.cancellation_reason ?? null),
    }),
    route({
      method: 'GET',
      path: '/course_assignments/courseAssignmentDetails/{course_assignmentid}',
      auth: 'user',
      summary: 'An assignment without per-trainee entries: assignee, course and stored progress',
      params: idParams('course_assignmentid'),
      response: assignmentDetailsSchema,
      handler: ({ caller, params }) => assignments.details(caller, params.course_assignmentid),
    }),
    route({
      method: 'GET',
      path: '/course_assignments/sources/user/{assigneeid}',
      auth: 'user',
      summary: "Where a user's active course assignments come from (their own, or a team's)",
      params: idParams('assigneeid'),
      response: z.array(userSourceSchema),
      handler: ({ caller, params }) => assignments.userSources(caller, params.assigneeid),
    }),
    route({
      method: 'GET',
      path: '/course_assignments/sources/team/{assigneeid}',
      auth: 'user',
      summary: "A team's active course assignments with their stored progress",
      params: idParams('assigneeid'),
      response: z.array(teamSourceSchema),
      handler: ({ caller, params }) => assignments.teamSources(caller, params.assigneeid),
    }),

    // ---- progress ----
    route({
      method: 'PATCH',
      path: '/course_assignments/start/{doctype}/{docid}',
      auth: 'user',
      summary: 'The caller starts a stage document (a new attempt unless one is in progress)',
      description:
        'doctype: guide, wiki or external_training_module. 422 `not_assigned` when no active assignment of ' +
        'the caller has a stage on it.',
      params: docParams,
      response: progressChangeSchema,
      handler: ({ auth, params }) => progress.start(auth, params.doctype, params.docid),
    }),
    route({
      method: 'PATCH',
      path: '/course_assignments/complete/{doctype}/{docid}',
      auth: 'user',
      summary:
        "Complete a stage document: the caller's own, or (body `userid`) a trainee's as their manager " +
        '(manager_override_userid)',
      description:
        'Body (optional): `{userid?, work_log_entryid?, revisionid?}`. Managers: Admins and owners of a ' +
        'team the trainee is in.',
      params: docParams,
      body: completeBody,
      example: {},
      response: progressChangeSchema,
      handler: ({ auth, params, body }) => progress.complete(auth, params.doctype, params.docid, body),
    }),
    route({
      method: 'PATCH',
      path: '/course_assignments/invalidate/{doctype}/{docid}/{userid}',
      auth: 'user',
      summary:
        "A manager invalidates a trainee's last completion of a document (status invalidated, reason manager_override)",
      params: z.object({ doctype, docid: pathId, userid: pathId }),
      response: progressChangeSchema,
      handler: ({ auth, params }) => progress.invalidate(auth, params.doctype, params.docid, params.userid),
    }),
    route({
      method: 'PATCH',
      path: '/course_assignments/User/completeAll/{assignee_userid}',
      auth: 'user',
      summary:
        "A manager completes every stage of the user's active assignments that is not completed (manager override)",
      params: idParams('assignee_userid'),
      response: userChangesSchema,
      handler: ({ auth, params }) => progress.userCompleteAll(auth, params.assignee_userid),
    }),
    route({
      method: 'PATCH',
      path: '/course_assignments/Team/completeAll/{assignee_teamid}',
      auth: 'user',
      summary: "The team's owner or an Admin completes every open stage of the team's assignments for every member",
      params: idParams('assignee_teamid'),
      response: teamChangesSchema,
      handler: ({ auth, params }) => progress.teamCompleteAll(auth, params.assignee_teamid),
    }),
    route({
      method: 'PATCH',
      path: '/course_assignments/User/invalidateAll/{assignee_userid}',
      auth: 'user',
      summary: "A manager invalidates the user's completions of every stage document of their active assignments",
      params: idParams('assignee_userid'),
      response: userChangesSchema,
      handler: ({ auth, params }) => progress.userInvalidateAll(auth, params.assignee_userid),
    }),
    route({
      method: 'PATCH',
      path: '/course_assignments/Team/invalidateAll/{assignee_teamid}',
      auth: 'user',
      summary: "The team's owner or an Admin invalidates the members' completions of the team's courses",
      params: idParams('assignee_teamid'),
      response: teamChangesSchema,
      handler: ({ auth, params }) => progress.teamInvalidateAll(auth, params.assignee_teamid),
    }),
    route({
      method: 'POST',
      path: '/course_assignments/stage_completions',
      auth: 'user',
      summary: "Managers record completions on trainees' behalf (1–25 at once, all or none): 201, the completions",
      description:
        'Body `{completions: [{userid, doctype, docid, init_date?, end_date?, work_log_entryid?}]}`; dates ' +
        'default to now and cannot be in the future.',
      status: 201,
      body: stageCompletionsBody,
      example: { completions: [{ userid: 2, doctype: 'guide', docid: 1 }] },
      response: z.object({ completions: z.array(z.nullable(completionSchema)) }),
      handler: ({ auth, body }) => progress.recordStageCompletions(auth, body.completions),
    }),

    // ---- summaries and reports ----
    route({
      method: 'GET',
      path: '/course_assignments/individualSummaries',
      auth: 'admin',
      summary: "Every trainee's stored training counts (limit/offset pages, by userid)",
      query: listQuery,
      response: z.array(userSummaryReportSchema),
      handler: ({ query }) => reports.individualSummaries(query),
    }),
    route({
      method: 'GET',
      path: '/course_assignments/individualSummaries/{userid}',
      auth: 'user',
      summary: "A trainee's stored training counts (the user, their managers, Admins)",
      params: idParams('userid'),
      response: userSummaryReportSchema,
      handler: ({ caller, params }) => reports.individualSummary(caller, params.userid),
    }),
    route({
      method: 'GET',
      path: '/course_assignments/teamSummaries',
      auth: 'admin',
      summary: "Every team's stored training counts (limit/offset pages, by teamid)",
      query: listQuery,
      response: z.array(teamSummaryReportSchema),
      handler: ({ query }) => reports.teamSummaries(query),
    }),
    route({
      method: 'GET',
      path: '/course_assignments/teamSummaries/{teamid}',
      auth: 'user',
      summary: "A team's stored training counts (members, the owner, Admins)",
      params: idParams('teamid'),
      response: teamSummaryReportSchema,
      handler: ({ caller, params }) => reports.teamSummary(caller, params.teamid),
    }),
    route({
      method: 'GET',
      path: '/course_assignments/completion/course/{wikiid}',
      auth: 'user',
      summary: "Completion report of a course: stored totals and each active assignment's (Authors, Admins)",
      params: idParams('wikiid'),
      query: listQuery,
      response: courseReportSchema,
      handler: ({ caller, params, query }) => reports.courseReport(caller, params.wikiid, query),
    }),
    route({
      method: 'GET',
      path: '/course_assignments/completion/team/{teamid}',
      auth: 'user',
      summary: "Completion report of a team: its stored totals and each active assignment's",
      params: idParams('teamid'),
      response: teamReportSchema,
      handler: ({ caller, params }) => reports.teamReport(caller, params.teamid),
    }),
    route({
      method: 'GET',
      path: '/course_assignments/completion/user/{userid}',
      auth: 'user',
      summary: 'Completion report of a user: stored totals and one row per active assignment',
      params: idParams('userid'),
      response: userReportSchema,
      handler: ({ caller, params }) => reports.userReport(caller, params.userid),
    }),
    route({
      method: 'GET',
      path: '/course_assignments/completion/team/{teamid}/user/{userid}',
      auth: 'user',
      summary: "A member's courses given through one team (the member, the team's owner, Admins)",
      params: idParams('teamid', 'userid'),
      response: teamUserReportSchema,
      handler: ({ caller, params }) => reports.teamUserReport(caller, params.teamid, params.userid),
    }),
    route({
      method: 'GET',
      path: '/course_assignments/completion/{wikiid}/{userid}',
      auth: 'user',
      summary: "One user on one course: their rows and each stage's entry as the stage rule decides it now",
      params: idParams('wikiid', 'userid'),
      response: courseUserReportSchema,
      handler: ({ caller, params }) => reports.courseUserReport(caller, params.wikiid, params.userid),
    }),
    route({
      method: 'POST',
      path: '/course_assignments/completion/courses',
      auth: 'user',
      summary: 'Completion reports of several courses: {"reports": [...]} (Authors, Admins)',
      body: z.object({ wikiids: ids }),
      example: { wikiids: [1] },
      response: z.object({ reports: z.array(courseReportSchema) }),
      handler: ({ caller, body }) =>
        reports.many(body.wikiids, 'wikiids', exists.course, (wikiid) => reports.courseReport(caller, wikiid)),
    }),
    route({
      method: 'POST',
      path: '/course_assignments/completion/teams',
      auth: 'user',
      summary: 'Completion reports of several teams: {"reports": [...]}',
      body: z.object({ teamids: ids }),
      example: { teamids: [1] },
      response: z.object({ reports: z.array(teamReportSchema) }),
      handler: ({ caller, body }) =>
        reports.many(body.teamids, 'teamids', exists.team, (teamid) => reports.teamReport(caller, teamid)),
    }),
    route({
      method: 'POST',
      path: '/course_assignments/completion/users',
      auth: 'user',
      summary: 'Completion reports of several users: {"reports": [...]}',
      body: z.object({ userids: ids }),
      example: { userids: [1] },
      response: z.object({ reports: z.array(userReportSchema) }),
      handler: ({ caller, body }) =>
        reports.many(body.userids, 'userids', exists.user, (userid) => reports.userReport(caller, userid)),
    }),

    // ---- course assignees ----
    route({
      method: 'GET',
      path: '/course_assignees/course/{wikiid}/users',
      auth: 'user',
      summary: 'Active user assignments of a course, one row each: {"response": [...]} (Authors, Admins)',
      description:
        '`page` (1-based), `limit` (default 10, at most 200), `direction` ASC|DESC, `orderby` ' +
        'username|status|stage_progress|assignment_date|due_date|course_completion_date|recurrence_date, ' +
        '`status` (comma list of not_started, in_progress, completed), `search` (username). Field ' +
        '`is_overdue` is experimental and must not be used for integrations.',
      params: idParams('wikiid'),
      query: userAssigneesQuery,
      response: z.object({ response: z.array(assigneeRowSchema) }),
      extensions: experimental,
      handler: ({ caller, params, query }) => assignees.users(caller, params.wikiid, query),
    }),
    route({
      method: 'GET',
      path: '/course_assignees/course/{wikiid}/teams',
      auth: 'user',
      summary:
        'Active team assignments of a course with stored progress and the first members\' rows: {"response": [...]}',
      description:
        `\`page\`, \`limit\` (default 10), \`direction\` (by assignment date), \`search\` (team name). Each ` +
        `entry shows up to ${assignees.MEMBERS_PREVIEW} members; the team detail pages them all. ` +
        `\`is_overdue\` is experimental.`,
      params: idParams('wikiid'),
      query: teamAssigneesQuery,
      extensions: experimental,
      response: z.object({ response: z.array(teamAssigneeSchema) }),
      handler: ({ caller, params, query }) => assignees.teams(caller, params.wikiid, query),
    }),
    route({
      method: 'GET',
      path: '/course_assignees/course/{wikiid}/teams/{teamid}',
      auth: 'user',
      summary: 'A team\'s completion progress on a course with its members\' rows (paged): {"response": {...}}',
      description:
        "`page`, `limit` (default 10), `status`, `search`. Authors, Admins and the team's owner. Field " +
        '`is_overdue` is experimental and must not be used for integrations.',
      params: idParams('wikiid', 'teamid'),
      query: teamMembersQuery,
      extensions: experimental,
      response: z.object({ response: teamAssigneeSchema }),
      handler: ({ caller, params, query }) => assignees.team(caller, params.wikiid, params.teamid, query),
    }),
  ],
});
