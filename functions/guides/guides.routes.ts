/**
 * Guides: lists, the full guide, create/edit/publish/delete, steps and their order, line
 * preview, and access grants. Releases are their own group (functions/releases).
 */
import { lazyService } from '../../shared/http/lazy-service.ts';
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { idParams } from '../../shared/http/schemas.ts';
import { pagination, queryFlag } from '../../shared/http/query.ts';
import { optionalRevisionQuery } from '../../shared/http/revision.ts';
import {
  addStepBody,
  createGuideBody,
  guideListQuery,
  idList,
  patchGuideBody,
  patchStepBody,
  stepLines,
} from './guides.schemas.ts';
import { guideSchema, guideSummarySchema, linePreviewSchema, stepSchema } from '../../shared/views/guide-views.ts';
import { userSummarySchema } from '../../shared/views/common-schemas.ts';
import type * as GuidesService from './guides.service.ts';
import type * as StepsService from './steps.service.ts';
import type * as GrantsService from './grants.service.ts';

const guides = lazyService<typeof GuidesService>(() => import('./guides.service.ts'));
const steps = lazyService<typeof StepsService>(() => import('./steps.service.ts'));
const grants = lazyService<typeof GrantsService>(() => import('./grants.service.ts'));

const pageQuery = z.object(pagination);
const id = z.int().check(z.positive());

/**
 * A team as grant lists show it (shared/views/team-views.ts, another area's, declares the
 * team's own schema): checked here only as far as grants rely on it.
 */
const grantedTeamSchema = z.looseObject({ teamid: z.int(), name: z.string() });
const exampleLines = [
  { text: 'Unplug the printer.', bullet: 'black', level: 0 },
  { text: 'Wait until the nozzle is cool.', bullet: 'icon_caution', level: 1 },
];

const revisionNote =
  'Requires `?revisionid=` (the current guide revisionid): 422 without it, 409 with the current guide when stale.';
const stepRevisionNote =
  "Requires `?revisionid=` with the STEP's current revisionid: 422 without it, 409 with the current step when stale.";

export const guidesGroup = defineGroup({
  name: 'guides',
  // No media bucket: guide and step images and files are shown at the site's /igi/ paths (decisions 197, 312).
  access: { table: 'readwrite', conditionChecks: true, batchWrite: true },
  routes: [
    route({
      method: 'GET',
      path: '/guides',
      auth: 'public',
      summary: 'Guide summaries by guideid: public guides, or with includePrivate every guide the caller can read',
      description:
        '`filter` by guide type, `guideids` (comma list; the first 50; no paging), `modifiedSince` (Unix ' +
        'seconds), `order` ASC|DESC.',
      query: guideListQuery,
      response: z.array(guideSummarySchema),
      handler: ({ caller, query }) => guides.list(caller, query),
    }),
    route({
      method: 'GET',
      path: '/guides/featured',
      auth: 'public',
      summary: 'Guides flagged GUIDE_STARRED (Admins set flags with PATCH /guides/{guideid})',
      query: pageQuery,
      response: z.array(guideSummarySchema),
      handler: ({ caller, query }) => guides.featured(caller, query),
    }),
    route({
      method: 'GET',
      path: '/guides/{guideid}',
      auth: 'public',
      summary: "The full guide; prerequisite guides' steps come first unless excludePrerequisiteSteps",
      description:
        'Private guides: 401 anonymous, 403 without access. A signed-in read is recorded in the view history.',
      params: idParams('guideid'),
      query: z.object({ excludePrerequisiteSteps: queryFlag, langid: z.optional(z.string()) }),
      response: guideSchema,
      handler: ({ caller, params, query }) => guides.read(caller, params.guideid, query),
    }),
    route({
      method: 'POST',
      path: '/guides',
      auth: 'author',
      summary: 'Create a guide (201, the whole guide) in an existing category',
      description:
        "`category` must be the exact title of a CATEGORY wiki; `type` one of the site's guide types; " +
        '`image` the id of a ready GuideImage of your media library (read back as the Image object). New ' +
        'guides are private unless `public: true`.',
      status: 201,
      body: createGuideBody,
      response: guideSchema,
      example: {
        category: 'Printers',
        type: 'how-to',
        title: 'Replace the print nozzle',
        summary: 'Swap a worn nozzle',
        introduction: "You need a '''hex key'''.",
      },
      handler: ({ caller, body }) => guides.create(caller, body),
    }),
    route({
      method: 'PATCH',
      path: '/guides/{guideid}',
      auth: 'user',
      summary: 'Edit a guide (any subset of the create fields; `flags` only by Admins)',
      description: revisionNote,
      params: idParams('guideid'),
      query: optionalRevisionQuery,
      revision: 'required',
      body: patchGuideBody,
      response: guideSchema,
      example: { title: 'Replace the print nozzle (v2)' },
      handler: ({ caller, params, query, body }) => guides.patch(caller, params.guideid, query.revisionid, body),
    }),
    route({
      method: 'DELETE',
      path: '/guides/{guideid}',
      auth: 'user',
      summary: 'Delete a guide (204)',
      description: revisionNote,
      status: 204,
      params: idParams('guideid'),
      query: optionalRevisionQuery,
      revision: 'required',
      handler: async ({ caller, params, query }) => {
        await guides.remove(caller, params.guideid, query.revisionid);
      },
    }),
    route({
      method: 'PUT',
      path: '/guides/{guideid}/public',
      auth: 'user',
      summary: 'Publish a guide (public: true); answers the whole guide',
      description: revisionNote,
      params: idParams('guideid'),
      query: optionalRevisionQuery,
      revision: 'required',
      response: guideSchema,
      handler: ({ caller, params, query }) => guides.setPublic(caller, params.guideid, query.revisionid, true),
    }),
    route({
      method: 'DELETE',
      path: '/guides/{guideid}/public',
      auth: 'user',
      summary: 'Make a guide private (public: false); answers the whole guide',
      description: revisionNote,
      params: idParams('guideid'),
      query: optionalRevisionQuery,
      revision: 'required',
      response: guideSchema,
      handler: ({ caller, params, query }) => guides.setPublic(caller, params.guideid, query.revisionid, false),
    }),
    route({
      method: 'POST',
      path: '/guides/{guideid}/steps',
      auth: 'user',
      summary: 'Add a step at `orderby` (1 .. steps + 1); answers 201 with the whole guide',
      description:
        'Lines: `text`, integer `level` (the first 0, each at most one deeper than the previous, at most 2) ' +
        "and `bullet` or `bullet_styleid`; 1–8 lines. `?revisionid=` (the guide's) is checked when given.",
      status: 201,
      params: idParams('guideid'),
      query: optionalRevisionQuery,
      revision: 'when-given',
      body: addStepBody,
      response: guideSchema,
      example: { orderby: 1, title: 'Cool down', lines: exampleLines },
      handler: ({ caller, params, query, body }) => steps.addStep(caller, params.guideid, query.revisionid, body),
    }),
    route({
      method: 'PATCH',
      path: '/guides/{guideid}/steps/{stepid}',
      auth: 'user',
      summary: 'Edit a step (title, lines, media); answers the step',
      description: stepRevisionNote,
      params: idParams('guideid', 'stepid'),
      query: optionalRevisionQuery,
      revision: 'required',
      body: patchStepBody,
      response: stepSchema,
      example: { title: 'Let it cool', lines: exampleLines },
      handler: ({ caller, params, query, body }) =>
        steps.patchStep(caller, params.guideid, params.stepid, query.revisionid, body),
    }),
    route({
      method: 'DELETE',
      path: '/guides/{guideid}/steps/{stepid}',
      auth: 'user',
      summary: 'Delete a step; answers 200 with the whole guide (what clients of the real service read)',
      description: stepRevisionNote,
      params: idParams('guideid', 'stepid'),
      query: optionalRevisionQuery,
      revision: 'required',
      response: guideSchema,
      handler: ({ caller, params, query }) => steps.deleteStep(caller, params.guideid, params.stepid, query.revisionid),
    }),
    route({
      method: 'PUT',
      path: '/guides/{guideid}/steporder',
      auth: 'user',
      summary:
        'Reorder the steps in one write: `stepids` lists every step once (JSON body, or a comma list in the query)',
      description: revisionNote,
      params: idParams('guideid'),
      query: z.object({ revisionid: optionalRevisionQuery.shape.revisionid, stepids: idList }),
      revision: 'required',
      body: z.object({ stepids: z.optional(z.array(id).check(z.maxLength(1000))) }),
      response: guideSchema,
      example: { stepids: [12, 11, 13] },
      handler: ({ caller, params, query, body }) =>
        steps.reorderSteps(caller, params.guideid, query.revisionid, body.stepids ?? query.stepids),
    }),
    route({
      method: 'POST',
      path: '/guides/steps/lines/preview',
      auth: 'user',
      summary: 'Render step lines without saving them: {lines: [{lineid, bullet, level, text_raw, text_rendered}]}',
      body: z.object({ lines: stepLines }),
      response: linePreviewSchema,
      example: { lines: exampleLines },
      handler: async ({ caller, body }) => steps.preview(caller, body.lines),
    }),
    route({
      method: 'GET',
      path: '/guides/{guideid}/users',
      auth: 'user',
      summary: 'Users granted the guide (user summaries; whoever may edit the guide)',
      params: idParams('guideid'),
      query: pageQuery,
      response: z.array(userSummarySchema),
      handler: ({ caller, params, query }) => grants.listUsers(caller, params.guideid, query),
    }),
    route({
      method: 'PUT',
      path: '/guides/{guideid}/users/{userid}',
      auth: 'user',
      summary: 'Grant a user the guide (the author and Admins); answers the granted users',
      params: idParams('guideid', 'userid'),
      response: z.array(userSummarySchema),
      handler: ({ caller, params }) => grants.grantUser(caller, params.guideid, params.userid),
    }),
    route({
      method: 'DELETE',
      path: '/guides/{guideid}/users/{userid}',
      auth: 'user',
      summary: "Revoke a user's grant (204; 404 when there is none)",
      status: 204,
      params: idParams('guideid', 'userid'),
      handler: async ({ caller, params }) => {
        await grants.revokeUser(caller, params.guideid, params.userid);
      },
    }),
    route({
      method: 'GET',
      path: '/guides/{guideid}/teams',
      auth: 'user',
      summary: 'Teams granted the guide (whoever may edit the guide)',
      params: idParams('guideid'),
      query: pageQuery,
      response: z.array(grantedTeamSchema),
      handler: ({ caller, params, query }) => grants.listTeams(caller, params.guideid, query),
    }),
    route({
      method: 'PUT',
      path: '/guides/{guideid}/teams/{teamid}',
      auth: 'user',
      summary: 'Grant a team the guide (the author and Admins); answers the granted teams',
      params: idParams('guideid', 'teamid'),
      response: z.array(grantedTeamSchema),
      handler: ({ caller, params }) => grants.grantTeam(caller, params.guideid, params.teamid),
    }),
    route({
      method: 'DELETE',
      path: '/guides/{guideid}/teams/{teamid}',
      auth: 'user',
      summary: "Revoke a team's grant (204; 404 when there is none)",
      status: 204,
      params: idParams('guideid', 'teamid'),
      handler: async ({ caller, params }) => {
        await grants.revokeTeam(caller, params.guideid, params.teamid);
      },
    }),
  ],
});
