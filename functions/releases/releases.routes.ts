/**
 * Releases of guides and wikis: `{releaseid, doctype, docid, revisionid, version "MAJOR.MINOR",
 * major, minor, release_type, notes, date, userid}` plus the real service's guide-release names
 * (guideid, title "Release V2.1", status, type, init_date, release_date, user). `status` is
 * "released", or "pending_approval" / "rejected" / "superseded" for a release made through an
 * approval request (then `version`, `major`, `minor` and `release_date` are null until released).
 */
import { lazyService } from '../../shared/http/lazy-service.ts';
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { idParams } from '../../shared/http/schemas.ts';
import { pagination } from '../../shared/http/query.ts';
import type * as ReleasesService from './releases.service.ts';
import {
  MAX_DUPLICATE_TARGETS,
  duplicateReleasesBody,
  guideReleaseBody,
  releaseNotesBody,
  wikiReleaseBody,
} from './releases.schemas.ts';
import { releaseListSchema, releaseSchema } from '../../shared/views/release-views.ts';

const releases = lazyService<typeof ReleasesService>(() => import('./releases.service.ts'));

export const releasesGroup = defineGroup({
  name: 'releases',
  access: { table: 'readwrite', conditionChecks: true },
  routes: [
    route({
      method: 'GET',
      path: '/guides/releases',
      auth: 'user',
      summary: 'Releases of the guides the caller can read, newest first: {"releases": [...]}',
      query: z.object(pagination),
      response: releaseListSchema,
      handler: ({ caller, query }) => releases.listAllGuideReleases(caller, query),
    }),
    route({
      method: 'GET',
      path: '/guides/{guideid}/releases',
      auth: 'public',
      summary: 'Releases of one guide, newest first: {"releases": [...]}',
      params: idParams('guideid'),
      response: releaseListSchema,
      handler: ({ caller, params }) => releases.listGuideReleases(caller, params.guideid),
    }),
    route({
      method: 'POST',
      path: '/guides/releases',
      auth: 'author',
      summary:
        'Release a guide revision (201): major → next MAJOR.0, minor → MAJOR.next; through approval when a ' +
        'process governs the guide',
      description:
        "`revisionid` defaults to the guide's current revision; an earlier revision of the guide may be " +
        'named. Whoever may edit the guide may release it. When an approval process governs the guide ' +
        '(attached to its category page or an ancestor), the release is made `status: "pending_approval"` ' +
        '(no version yet) with an approval request for the current revision (`approval_requestid`); it ' +
        'becomes the current release when the request is approved, and stays `rejected` or `superseded` ' +
        'otherwise. 409 while a request for the revision is open, or when an earlier revision is named.',
      status: 201,
      body: guideReleaseBody,
      response: releaseSchema,
      example: { guideid: 1, release_type: 'major', notes: 'First approved version' },
      handler: ({ caller, body }) => releases.createGuideRelease(caller, body),
    }),
    route({
      method: 'PATCH',
      path: '/guides/releases/{releaseid}',
      auth: 'author',
      summary: "Change a guide release's notes (the version and revision of a release never change)",
      params: idParams('releaseid'),
      body: releaseNotesBody,
      response: releaseSchema,
      example: { notes: 'Approved by QA' },
      handler: ({ caller, params, body }) => releases.patchGuideRelease(caller, params.releaseid, body),
    }),
    route({
      method: 'DELETE',
      path: '/guides/releases/{releaseid}',
      auth: 'author',
      summary:
        'Delete a guide release (204); its version number is not handed out again. 409 while it waits for approval',
      status: 204,
      params: idParams('releaseid'),
      handler: async ({ caller, params }) => {
        await releases.deleteReleaseOf(caller, params.releaseid, 'guide');
      },
    }),
    route({
      method: 'POST',
      path: '/guides/duplicateReleases',
      auth: 'author',
      summary:
        'Apply a guide release to other guides: each gets a release of its current revision with the same ' +
        'type and notes (201)',
      description:
        `All or none; at most ${MAX_DUPLICATE_TARGETS} guides, each editable by the caller and ` +
        `governed by no approval process (422 \`approval_required\`: release those one by one). Answers ` +
        `{"releases": [...]} in the order of guideids.`,
      status: 201,
      body: duplicateReleasesBody,
      response: releaseListSchema,
      example: { releaseid: 1, guideids: [2, 3] },
      handler: ({ caller, body }) => releases.duplicateReleases(caller, body),
    }),
    route({
      method: 'POST',
      path: '/wikis/{wikiid}/releases',
      auth: 'author',
      summary:
        'Release a wiki revision (201), numbered like guide releases; through approval when a process governs the page',
      description:
        "`revisionid` defaults to the wiki's current revision; an earlier revision of the wiki may be " +
        "named. A page governed by an approval process (its own or an ancestor's) is released through an " +
        'approval request, as guides are: `status: "pending_approval"` until approved.',
      status: 201,
      params: idParams('wikiid'),
      body: wikiReleaseBody,
      response: releaseSchema,
      example: { release_type: 'minor', notes: 'Typo fixes' },
      handler: ({ caller, params, body }) => releases.createWikiRelease(caller, params.wikiid, body),
    }),
    route({
      method: 'DELETE',
      path: '/wikis/releases/{releaseid}',
      auth: 'author',
      summary: 'Delete a wiki release (204); 409 while it waits for approval',
      status: 204,
      params: idParams('releaseid'),
      handler: async ({ caller, params }) => {
        await releases.deleteReleaseOf(caller, params.releaseid, 'wiki');
      },
    }),
  ],
});
