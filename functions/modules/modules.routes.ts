/**
 * External training modules (SCORM 1.2/2004, cmi5, Tin Can packages): imports through the
 * import state machine, versions, current and draft, usage, preview and the player.
 */
import * as z from 'zod/mini';
import { defineGroup, route } from '../../shared/http/route.ts';
import { pagination, queryFlag } from '../../shared/http/query.ts';
import { idParams } from '../../shared/http/schemas.ts';
import { MODULE_CONTENT_PREFIX, MODULE_PACKAGES_PREFIX } from '../../shared/storage/module-objects.ts';
import * as modules from './modules.service.ts';
import { commitBody, createImportBody, draftsBody, startByUrlBody } from './modules.schemas.ts';
import { moduleAttemptListSchema, moduleAttemptSchema } from '../../shared/views/module-attempt-views.ts';
import {
  moduleDraftListSchema,
  moduleImportListSchema,
  moduleImportProgressSchema,
  moduleImportSchema,
  moduleListSchema,
  modulePlayerSchema,
  moduleSchema,
  moduleUploadStartSchema,
  moduleUsageSchema,
} from '../../shared/views/module-views.ts';

const pageQuery = z.object(pagination);
const pointerBody = z.object({ importid: z.int().check(z.positive()) });
const MANAGE =
  `Needs the permission to manage external training modules (Admins, and users flagged ` +
  `\`${modules.MANAGE_MODULES_FLAG}\`).`;

export const modulesGroup = defineGroup({
  name: 'modules',
  // Packages are uploaded with presigned POSTs to imports/; launch URLs are presigned GETs of content/; deleting or
  // cancelling an import removes its objects.
  access: {
    table: 'readwrite',
    conditionChecks: true,
    modulesBucket: {
      read: [MODULE_CONTENT_PREFIX],
      write: [MODULE_PACKAGES_PREFIX],
      delete: [MODULE_PACKAGES_PREFIX, MODULE_CONTENT_PREFIX],
    },
    startImport: true,
    // Launch URLs and the player data's content_base_url carry a token sealed with it (decision 346).
    contentSigningKey: true,
  },
  routes: [
    route({
      method: 'GET',
      path: '/external_training_modules/current',
      auth: 'user',
      summary: 'Current modules (those with a version promoted to current), as `{modules: [...]}`',
      query: pageQuery,
      response: moduleListSchema,
      handler: ({ query }) => modules.currentModules(query),
    }),
    route({
      method: 'POST',
      path: '/external_training_modules/drafts',
      auth: 'author',
      summary: 'Data of draft modules, as `{drafts: [...]}`: those listed in `ids`, or every module with a draft',
      query: pageQuery,
      body: draftsBody,
      response: moduleDraftListSchema,
      example: { ids: [1, 2] },
      handler: ({ body, query }) => modules.drafts(body, query),
    }),
    route({
      method: 'GET',
      path: '/external_training_modules/{id}/usage',
      auth: 'author',
      summary: 'Courses that contain the module, as `{usage: [{doctype, wikiid, title}]}`',
      params: idParams('id'),
      query: pageQuery,
      response: moduleUsageSchema,
      handler: ({ params, query }) => modules.usage(params.id, query),
    }),
    route({
      method: 'GET',
      path: '/external_training_modules/{id}/player',
      auth: 'user',
      summary: 'Player data of the current version: launch URL on the content origin, SCO list, the attempt and entry',
      description:
        'Only for users assigned to a course that contains the module (403 otherwise). SCORM: `attempt` is the ' +
        "caller's attempt this launch continues (resumed after a suspend, else the next), with each SCO's entry " +
        "and the CMI data its runtime starts with (the manifest's launch values filled).",
      params: idParams('id'),
      response: modulePlayerSchema,
      handler: ({ caller, params }) => modules.player(caller, params.id),
    }),
    route({
      method: 'POST',
      path: '/external_training_modules/{id}/attempts/{attemptid}/commit',
      auth: 'user',
      summary: "Keep the SCORM runtime's CMI data of one SCO in the caller's attempt (Initialize, Commit, Terminate)",
      description:
        'Only for users assigned to a course that contains the module (403). `version` is the version of the ' +
        'attempt this replaces (0 for a new attempt; the player data names it, and `attemptid`, the number): ' +
        'another is 409 with the current attempt. `cmi` is the flattened data model ' +
        '(`{"cmi.core.lesson_status": "passed"}`). 422 with ' +
        "`scorm_<code>` per element over the spec's limits (e.g. suspend_data over 4,096 characters in 1.2, " +
        '64,000 in 2004), `terminated` for a commit after Terminate/LMSFinish without a new Initialize. The ' +
        'server judges the result (mastery score, scaled passing score, completion threshold); the commit that ' +
        'first satisfies the module completes its course stage. SCORM 2004: `nav` with `terminate` is the ' +
        "Terminate's navigation request (`continue`, `previous`, `{target=ID}choice`, `exitAll`...); the " +
        "manifest's exit and post-condition rules apply and the answer's `navigation` says what is delivered " +
        'next (`deliver`), whether the session ends (`end`), or why nothing is (`message`; decision 335).',
      params: idParams('id', 'attemptid'),
      body: commitBody,
      example: {
        version: 3,
        sco: 'intro',
        cmi: {
          'cmi.core.lesson_status': 'incomplete',
          'cmi.core.lesson_location': 'page-4',
          'cmi.suspend_data': 'p=4',
        },
      },
      response: moduleAttemptSchema,
      handler: ({ caller, params, body }) => modules.commitAttempt(caller, params.id, params.attemptid, body),
    }),
    route({
      method: 'GET',
      path: '/external_training_modules/{id}/attempts',
      auth: 'user',
      summary: "The caller's attempts at the module (status, score, time, dates), newest first, as `{attempts}`",
      description: "`all=true`: every learner's attempts, for module managers and Admins (403 otherwise), by learner.",
      params: idParams('id'),
      query: z.object({ ...pagination, all: queryFlag }),
      response: moduleAttemptListSchema,
      handler: ({ caller, params, query }) => modules.moduleAttempts(caller, params.id, query.all, query),
    }),
    route({
      method: 'PUT',
      path: '/external_training_modules/{id}/current',
      auth: 'user',
      summary: 'Promote an import of the module to current',
      description: `${MANAGE} The import must belong to the module and be complete (422 otherwise).`,
      params: idParams('id'),
      body: pointerBody,
      example: { importid: 1 },
      response: moduleSchema,
      handler: ({ caller, params, body }) => modules.setPointer(caller, params.id, body.importid, 'current'),
    }),
    route({
      method: 'PUT',
      path: '/external_training_modules/{id}/draft',
      auth: 'user',
      summary: 'Set an import of the module as its draft',
      description: `${MANAGE} The import must belong to the module and be complete (422 otherwise).`,
      params: idParams('id'),
      body: pointerBody,
      example: { importid: 1 },
      response: moduleSchema,
      handler: ({ caller, params, body }) => modules.setPointer(caller, params.id, body.importid, 'draft'),
    }),
    route({
      method: 'GET',
      path: '/external_training_modules/{id}/imports',
      auth: 'author',
      summary: 'Import versions of the module, newest provider_version_number first, as `{imports: [...]}`',
      params: idParams('id'),
      query: pageQuery,
      response: moduleImportListSchema,
      handler: ({ params, query }) => modules.imports(params.id, query),
    }),
    route({
      method: 'POST',
      path: '/external_training_modules/imports',
      auth: 'user',
      status: 201,
      summary:
        'First step of an import: a new version of a module (a new module unless `moduleid` is given); ' +
        'answers the import',
      description: `${MANAGE} Then start it with start/byUpload or start/byUrl.`,
      body: createImportBody,
      response: moduleImportSchema,
      example: { title: 'Lockout/Tagout refresher' },
      handler: ({ caller, body }) => modules.createImport(caller, body),
    }),
    route({
      method: 'POST',
      path: '/external_training_modules/imports/{importid}/start/byUrl',
      auth: 'user',
      summary: 'Start the import from a URL; the package is fetched server-side',
      description:
        `${MANAGE} Only http(s) URLs of public addresses: 422 url_not_allowed ("The URL is not allowed": ` +
        `another scheme, a literal private address) or fetch_failed ("The URL could not be fetched": a name ` +
        `that does not resolve or resolves to a private address); redirects are checked again, size and ` +
        `time are capped. 409 if the import was started already, unless it failed as \`interrupted\` (then ` +
        `it starts again); 503 if the workflow could not be started (the import is then interrupted).`,
      params: idParams('importid'),
      body: startByUrlBody,
      response: moduleImportSchema,
      example: { url: 'https://content.example.com/packages/lockout-tagout.zip' },
      handler: ({ caller, params, body }) => modules.startByUrl(caller, params.importid, body),
    }),
    route({
      method: 'POST',
      path: '/external_training_modules/imports/{importid}/start/byUpload',
      mintsCredentials: true,
      auth: 'user',
      summary: 'Start the import from a file: answers a presigned upload target (`upload: {url, fields}`) for the zip',
      description:
        `${MANAGE} POST the zip to \`upload.url\` as a form with every field of \`upload.fields\` and then ` +
        `the file as \`file\`; the import continues once it is stored. 409 if the import was started ` +
        `already, unless it failed as \`interrupted\` (then it starts again); 503 if the workflow could not ` +
        `be started (the import is then interrupted).`,
      params: idParams('importid'),
      response: moduleUploadStartSchema,
      handler: ({ caller, params }) => modules.startByUpload(caller, params.importid),
    }),
    route({
      method: 'POST',
      path: '/external_training_modules/imports/{importid}/cancel',
      auth: 'user',
      summary: 'Cancel an import in progress (stops its execution); 409 once it has finished',
      description: MANAGE,
      params: idParams('importid'),
      response: moduleImportSchema,
      handler: ({ caller, params }) => modules.cancel(caller, params.importid),
    }),
    route({
      method: 'GET',
      path: '/external_training_modules/imports/{importid}/progress',
      auth: 'user',
      summary: 'State and percent of a running import: `{importid, moduleid, status, stage, percent, error}`',
      description:
        `${MANAGE} A running import whose workflow ended without recording an outcome (a crash, a stop, a ` +
        `timeout) reads as failed with error code \`interrupted\`; start it again with start/byUpload or start/byUrl.`,
      params: idParams('importid'),
      response: moduleImportProgressSchema,
      handler: ({ caller, params }) => modules.progress(caller, params.importid),
    }),
    route({
      method: 'GET',
      path: '/external_training_modules/imports/{importid}/preview',
      auth: 'user',
      summary: 'Player data for previewing a complete import',
      description: MANAGE,
      params: idParams('importid'),
      response: modulePlayerSchema,
      handler: ({ caller, params }) => modules.preview(caller, params.importid),
    }),
  ],
});
