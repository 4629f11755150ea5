/**
 * Site export and import (Admins, beyond the spec): jobs that write the whole site as a site
 * file and read one back, keeping every id (docs/export-format.md).
 */
import { ForbiddenError } from '../../shared/domain/errors.ts';
import { type AuthorizeRequest, defineGroup, route } from '../../shared/http/route.ts';
import { idParams } from '../../shared/http/schemas.ts';
import { SITE_TRANSFER_PREFIX } from '../../shared/site-archive/keys.ts';
import { siteExportSchema, siteImportCreatedSchema, siteImportSchema } from '../../shared/views/site-transfer-views.ts';
import { createExportBody, createImportBody } from './site-transfer.schemas.ts';
import * as transfer from './site-transfer.service.ts';

/**
 * A site file holds every account's password hash and credential hashes: only an Admin signed in
 * as themselves reads or writes one, never a site API token (read-only or full) nor an Admin's
 * impersonation token (issue 35 item 9, decision 256).
 */
function adminAsThemselves({ auth }: AuthorizeRequest): void {
  if (auth.user?.service || auth.impersonatorUserid !== undefined) {
    throw new ForbiddenError('Site exports and imports are for an Admin signed in as themselves, not a token');
  }
}

export const siteTransferGroup = defineGroup({
  name: 'site-transfer',
  // Creates job items, signs the upload (POST) and part download (GET) URLs under site-transfer/,
  // checks the uploaded file's size (HEAD), starts the two state machines.
  access: {
    table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem'],
    // A cancel removes the export's parts or the import's uploaded file.
    modulesBucket: {
      read: [SITE_TRANSFER_PREFIX],
      write: [SITE_TRANSFER_PREFIX],
      delete: [SITE_TRANSFER_PREFIX],
      headMissing: true,
    },
    startSiteTransfer: true,
  },
  routes: [
    route({
      method: 'POST',
      path: '/admin/exports',
      auth: 'admin',
      authorize: adminAsThemselves,
      summary: 'Start an export of the whole site (a job; poll GET /admin/exports/{exportid})',
      description:
        'Writes every table item (ids, revisions, audit chains, credential hashes) and, unless ' +
        '`include_objects` is false, every media file and module package, as a site file in parts ' +
        '(docs/export-format.md).',
      body: createExportBody,
      status: 202,
      response: siteExportSchema,
      example: { include_objects: true, webhook_secrets_passphrase: 'correct horse battery staple' },
      handler: ({ caller, body }) => transfer.createExport(caller, body),
    }),
    route({
      method: 'GET',
      path: '/admin/exports/{exportid}',
      auth: 'admin',
      authorize: adminAsThemselves,
      summary: 'An export: progress, counts per entity and, once complete, download URLs of its parts',
      params: idParams('exportid'),
      response: siteExportSchema,
      handler: ({ params }) => transfer.exportStatus(params.exportid),
    }),
    route({
      method: 'POST',
      path: '/admin/exports/{exportid}/cancel',
      auth: 'admin',
      authorize: adminAsThemselves,
      summary: 'Cancel a running export: stops its job and removes its parts (409 once it has finished)',
      params: idParams('exportid'),
      response: siteExportSchema,
      handler: ({ caller, params }) => transfer.cancelExport(caller, params.exportid),
    }),
    route({
      method: 'POST',
      path: '/admin/imports',
      mintsCredentials: true,
      auth: 'admin',
      authorize: adminAsThemselves,
      summary: 'Create an import: answers where to POST the site file (a presigned upload form)',
      description:
        'mode `empty` (default) needs a site holding only its first Admin; `merge` refuses any id ' +
        'collision. `dry_run` validates and reports only. Then POST …/start.',
      body: createImportBody,
      status: 201,
      response: siteImportCreatedSchema,
      example: { mode: 'merge', dry_run: true, allow_admin_grants: false },
      handler: ({ caller, body }) => transfer.createImport(caller, body),
    }),
    route({
      method: 'POST',
      path: '/admin/imports/{importid}/start',
      auth: 'admin',
      authorize: adminAsThemselves,
      summary: 'Start an uploaded import, or again once interrupted (409 before the upload or once started)',
      params: idParams('importid'),
      status: 202,
      response: siteImportSchema,
      handler: ({ params }) => transfer.startImport(params.importid),
    }),
    route({
      method: 'POST',
      path: '/admin/imports/{importid}/cancel',
      auth: 'admin',
      authorize: adminAsThemselves,
      summary: 'Cancel an import that has written nothing yet (409 once writing or finished)',
      description:
        'Awaiting its upload or validating: the job stops, its uploaded file is removed, the site is ' +
        'unchanged. Once writing it runs to its end, so a cancel never leaves a half-written import.',
      params: idParams('importid'),
      response: siteImportSchema,
      handler: ({ caller, params }) => transfer.cancelImport(caller, params.importid),
    }),
    route({
      method: 'GET',
      path: '/admin/imports/{importid}',
      auth: 'admin',
      authorize: adminAsThemselves,
      summary: 'An import: status, percent and the validation report',
      params: idParams('importid'),
      response: siteImportSchema,
      handler: ({ params }) => transfer.importStatus(params.importid),
    }),
  ],
});
