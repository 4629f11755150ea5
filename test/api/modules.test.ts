/**
 * External training modules over HTTP, through the real local pipeline: packages built in the
 * test are uploaded to the S3 emulator with the presigned target, and the import state machine
 * (the same ASL the CDK deploys) validates, extracts and records them.
 */
import { DescribeExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import { HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { contentKey } from '../../shared/storage/module-objects.ts';
import { inject, beforeAll, describe, expect, it } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { transactWrite } from '../../shared/db/transactions.ts';
import { moduleUsageWrite } from '../../shared/db/entities/module-usage.ts';
import { enrollmentWrite } from '../../shared/db/entities/course-enrollment.ts';
import { api, createUser, loginAdmin } from '../support/api.ts';
import {
  cmi5Package,
  corruptEntryPackage,
  corruptPackage,
  scorm12Package,
  scorm2004Package,
  tooDeepPackage,
  zip,
  zipBombPackage,
} from '../support/module-packages.ts';
import { createImport, finished, importPackage } from '../support/modules.ts';

/** The local state machine's executions (the stack's fixed local account and region). */
const EXECUTIONS_ARN = 'arn:aws:states:us-east-1:000000000000:execution:stepwise-module-import';

let admin: string;

/** The S3 emulator, as the functions reach it (object requests only: no bucket-path fix needed). */
function localS3(): S3Client {
  return new S3Client({
    endpoint: inject('s3Endpoint'),
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

beforeAll(async () => {
  admin = await loginAdmin();
  // Usage and enrollment items are the courses code's to write; the tests write them directly.
  process.env.DDB_ENDPOINT = inject('ddbEndpoint');
  reloadConfig();
});

describe('importing packages through the pipeline', () => {
  it('imports a SCORM 1.2 package by upload: complete, version recorded, content extracted', async () => {
    const { importid, moduleid, provider_version_number, result } = await importPackage(
      admin,
      await scorm12Package('Lockout Tagout'),
    );
    expect(provider_version_number).toBe(1);
    expect(result).toMatchObject({ importid, moduleid, status: 'complete', stage: 'done', percent: 100, error: null });

    const versions = await api('GET', `/external_training_modules/${moduleid}/imports`, { token: admin });
    expect(versions.body.imports).toEqual([
      expect.objectContaining({
        importid,
        status: 'complete',
        provider_version_number: 1,
        title: 'Lockout Tagout',
        standard: 'scorm12',
        schema_version: '1.2',
        launch: 'index.html',
        repaired: false,
        file_count: 4,
      }),
    ]);

    const preview = await api('GET', `/external_training_modules/imports/${importid}/preview`, { token: admin });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      moduleid,
      importid,
      title: 'Lockout Tagout',
      standard: 'scorm12',
      launch_parameters: null,
      expires_in: 4 * 3600,
    });
    const launched = await fetch(preview.body.launch_url);
    expect(launched.status).toBe(200);
    expect(await launched.text()).toContain('<title>Lockout Tagout</title>');
  });

  it('imports SCORM 2004 and cmi5 packages, each with its standard and launch', async () => {
    const v2004 = await importPackage(admin, await scorm2004Package('Forklift Operation'));
    expect(v2004.result.status).toBe('complete');
    const preview = await api('GET', `/external_training_modules/imports/${v2004.importid}/preview`, { token: admin });
    expect(preview.body).toMatchObject({
      standard: 'scorm2004',
      title: 'Forklift Operation',
      launch_parameters: '?lesson=1',
    });
    expect(await (await fetch(preview.body.launch_url)).text()).toContain('Forklift Operation');

    const cmi5 = await importPackage(admin, await cmi5Package('Safety Basics'));
    expect(cmi5.result.status).toBe('complete');
    const [version] = (await api('GET', `/external_training_modules/${cmi5.moduleid}/imports`, { token: admin })).body
      .imports;
    expect(version).toMatchObject({
      standard: 'cmi5',
      launch: 'au1/index.html',
      identifier: 'https://example.com/courses/safety',
    });
  });

  it('repairs a package zipped one folder too deep', async () => {
    const { importid, moduleid, result } = await importPackage(admin, await tooDeepPackage('Nested Export'));
    expect(result.status).toBe('complete');
    const [version] = (await api('GET', `/external_training_modules/${moduleid}/imports`, { token: admin })).body
      .imports;
    expect(version).toMatchObject({ repaired: true, file_count: 3, title: 'Nested Export' });
    const preview = await api('GET', `/external_training_modules/imports/${importid}/preview`, { token: admin });
    expect(await (await fetch(preview.body.launch_url)).text()).toContain('Nested Export');
  });

  it.each([
    ['a corrupt zip', corruptPackage, 'not_a_zip'],
    ['a zip with a corrupt entry (found while extracting)', corruptEntryPackage, 'not_a_zip', 'extracting'],
    ['a zip bomb', zipBombPackage, 'zip_bomb'],
    ['a zip without a manifest', () => zip({ 'index.html': '<p>hi</p>' }), 'manifest_missing'],
    [
      'a manifest that is not XML',
      () => zip({ 'imsmanifest.xml': '<manifest><broken>', 'index.html': 'x' }),
      'manifest_invalid',
    ],
    [
      'a manifest launching a missing file',
      () =>
        zip({
          'imsmanifest.xml':
            '<manifest identifier="m"><metadata><schemaversion>1.2</schemaversion></metadata><organizations ' +
            'default="o"><organization identifier="o"><title>T</title><item identifier="i" ' +
            'identifierref="r"/></organization></organizations><resources><resource identifier="r" ' +
            'href="missing.html"/></resources></manifest>',
        }),
      'launch_missing',
    ],
  ])('fails %s with its error code, and previews nothing', async (_name, build, code, stage = 'validating') => {
    const { importid, result } = await importPackage(admin, await build());
    expect(result.status).toBe('failed');
    expect(result.error.code).toBe(code);
    expect(result.stage).toBe(stage);
    expect(result.error.message.length).toBeGreaterThan(10);
    const preview = await api('GET', `/external_training_modules/imports/${importid}/preview`, { token: admin });
    expect(preview.status).toBe(422);
  });

  it('offers an upload target limited to the package size; a file that is not a zip fails validation', async () => {
    const created = await createImport(admin);
    const started = await api('POST', `/external_training_modules/imports/${created.importid}/start/byUpload`, {
      token: admin,
    });
    expect(started.body).toMatchObject({
      status: 'running',
      stage: 'awaiting_upload',
      upload: { max_bytes: 1024 ** 3 },
    });
    const plain = await importPackage(admin, Buffer.from('just text, no zip at all'));
    expect(plain.result.error.code).toBe('not_a_zip');
    await api('POST', `/external_training_modules/imports/${created.importid}/cancel`, { token: admin });
  });
});

describe('versions, current and draft', () => {
  it('numbers the versions of a module and lists them newest first', async () => {
    const first = await importPackage(admin, await scorm12Package('Versioned'));
    const second = await importPackage(admin, await scorm12Package('Versioned v2'), { moduleid: first.moduleid });
    expect(second.moduleid).toBe(first.moduleid);
    expect(second.provider_version_number).toBe(2);
    const versions = await api('GET', `/external_training_modules/${first.moduleid}/imports`, { token: admin });
    expect(versions.body.imports.map((v: { importid: number }) => v.importid)).toEqual([
      second.importid,
      first.importid,
    ]);
    const page = await api('GET', `/external_training_modules/${first.moduleid}/imports`, {
      token: admin,
      query: { limit: 1, offset: 1 },
    });
    expect(page.body.imports.map((v: { provider_version_number: number }) => v.provider_version_number)).toEqual([1]);
    const unknownModule = await api('POST', '/external_training_modules/imports', {
      token: admin,
      body: { moduleid: 999999999 },
    });
    expect(unknownModule.status).toBe(422);
  });

  it('promotes an import to current and sets a draft; lists current modules and draft data', async () => {
    const one = await importPackage(admin, await scorm12Package('Promoted'));
    const two = await importPackage(admin, await scorm12Package('Promoted v2'), { moduleid: one.moduleid });

    const current = await api('PUT', `/external_training_modules/${one.moduleid}/current`, {
      token: admin,
      body: { importid: one.importid },
    });
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({
      moduleid: one.moduleid,
      current_importid: one.importid,
      title: 'Promoted',
      current: { importid: one.importid, status: 'complete' },
    });
    const draft = await api('PUT', `/external_training_modules/${one.moduleid}/draft`, {
      token: admin,
      body: { importid: two.importid },
    });
    expect(draft.body).toMatchObject({
      current_importid: one.importid,
      draft_importid: two.importid,
      draft: { provider_version_number: 2 },
    });

    const list = await api('GET', '/external_training_modules/current', { token: admin, query: { limit: 200 } });
    expect(list.body.modules.find((m: { moduleid: number }) => m.moduleid === one.moduleid)).toMatchObject({
      current: { importid: one.importid },
    });
    const drafts = await api('POST', '/external_training_modules/drafts', {
      token: admin,
      body: { ids: [one.moduleid, 999999999] },
    });
    expect(drafts.body.drafts).toEqual([
      expect.objectContaining({ moduleid: one.moduleid, draft: expect.objectContaining({ importid: two.importid }) }),
    ]);
    const allDrafts = await api('POST', '/external_training_modules/drafts', {
      token: admin,
      body: {},
      query: { limit: 200 },
    });
    expect(allDrafts.body.drafts.map((m: { moduleid: number }) => m.moduleid)).toContain(one.moduleid);
  });

  it('needs the permission (403), refuses an import of another module or an unfinished one (422), 404 for an unknown module', async () => {
    const mine = await importPackage(admin, await scorm12Package('Mine'));
    const other = await importPackage(admin, await scorm12Package('Other'));
    const broken = await importPackage(admin, await corruptPackage(), { moduleid: mine.moduleid });
    const user = await createUser();

    const forbidden = await api('PUT', `/external_training_modules/${mine.moduleid}/current`, {
      token: user.token,
      body: { importid: mine.importid },
    });
    expect(forbidden.status).toBe(403);
    const wrongModule = await api('PUT', `/external_training_modules/${mine.moduleid}/current`, {
      token: admin,
      body: { importid: other.importid },
    });
    expect(wrongModule.status).toBe(422);
    expect(wrongModule.body.errors[0]).toMatchObject({ field: 'importid', code: 'wrong_module' });
    const unfinished = await api('PUT', `/external_training_modules/${mine.moduleid}/draft`, {
      token: admin,
      body: { importid: broken.importid },
    });
    expect(unfinished.body.errors[0]).toMatchObject({ field: 'importid', code: 'not_complete' });
    const missingImport = await api('PUT', `/external_training_modules/${mine.moduleid}/draft`, {
      token: admin,
      body: { importid: 999999999 },
    });
    expect(missingImport.body.errors[0]).toMatchObject({ code: 'not_found' });
    expect(
      (
        await api('PUT', '/external_training_modules/999999999/current', {
          token: admin,
          body: { importid: mine.importid },
        })
      ).status,
    ).toBe(404);

    // The per-user grant: an Admin flags the account.
    await api('PATCH', `/users/${user.userid}`, {
      token: admin,
      body: { flags: ['manage_external_training_modules'] },
    });
    const granted = await api('PUT', `/external_training_modules/${mine.moduleid}/current`, {
      token: user.token,
      body: { importid: mine.importid },
    });
    expect(granted.status).toBe(200);
    expect((await api('POST', '/external_training_modules/imports', { token: user.token, body: {} })).status).toBe(201);
  });

  it('keeps import operations to managers', async () => {
    const created = await createImport(admin);
    const user = await createUser();
    for (const [method, path] of [
      ['POST', '/external_training_modules/imports'],
      ['POST', `/external_training_modules/imports/${created.importid}/start/byUpload`],
      ['POST', `/external_training_modules/imports/${created.importid}/cancel`],
      ['GET', `/external_training_modules/imports/${created.importid}/progress`],
      ['GET', `/external_training_modules/imports/${created.importid}/preview`],
    ] as const) {
      expect(
        (await api(method, path, { token: user.token, body: method === 'POST' ? {} : undefined })).status,
        path,
      ).toBe(403);
    }
  });
});

describe('cancel and progress', () => {
  it('reports a running import, cancels it (execution stopped), and refuses to cancel twice', async () => {
    const created = await createImport(admin);
    const waiting = await api('GET', `/external_training_modules/imports/${created.importid}/progress`, {
      token: admin,
    });
    expect(waiting.body).toMatchObject({ status: 'created', stage: 'awaiting_package', percent: 0 });
    const started = await api('POST', `/external_training_modules/imports/${created.importid}/start/byUpload`, {
      token: admin,
    });
    expect(started.status).toBe(200);
    const again = await api('POST', `/external_training_modules/imports/${created.importid}/start/byUpload`, {
      token: admin,
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ importid: created.importid, status: 'running' });

    const running = await api('GET', `/external_training_modules/imports/${created.importid}/progress`, {
      token: admin,
    });
    expect(running.body).toMatchObject({ status: 'running', stage: 'awaiting_upload' });
    // Content an extraction already wrote must not outlive the cancel.
    const extracted = { Bucket: 'stepwise-modules', Key: contentKey(created.importid, 'index.html') };
    await localS3().send(new PutObjectCommand({ ...extracted, Body: '<html></html>' }));
    const cancelled = await api('POST', `/external_training_modules/imports/${created.importid}/cancel`, {
      token: admin,
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', error: { code: 'cancelled' } });
    await expect(localS3().send(new HeadObjectCommand(extracted))).rejects.toMatchObject({ name: 'NotFound' });

    // The execution is stopped: a late upload changes nothing.
    const form = new FormData();
    for (const [name, value] of Object.entries(started.body.upload.fields as Record<string, string>))
      form.append(name, value);
    form.append('file', new Blob([await scorm12Package()]), 'package.zip');
    expect((await fetch(started.body.upload.url, { method: 'POST', body: form })).status).toBe(204);
    const execution = await new SFNClient({
      endpoint: inject('sfnEndpoint'),
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    }).send(
      new DescribeExecutionCommand({
        executionArn: `${EXECUTIONS_ARN}:import-${created.importid}`,
      }),
    );
    expect(execution).toMatchObject({ status: 'ABORTED', error: 'ImportCancelled' });
    expect((await finished(admin, created.importid)).status).toBe('cancelled');
    expect(
      (await api('POST', `/external_training_modules/imports/${created.importid}/cancel`, { token: admin })).status,
    ).toBe(409);
  });

  it('404 for an unknown import', async () => {
    expect((await api('GET', '/external_training_modules/imports/999999999/progress', { token: admin })).status).toBe(
      404,
    );
    expect((await api('POST', '/external_training_modules/imports/999999999/cancel', { token: admin })).status).toBe(
      404,
    );
  });
});

describe('usage and the player', () => {
  it('lists the courses that contain the module, and plays it only for users assigned to one of them', async () => {
    const { moduleid, importid } = await importPackage(admin, await scorm12Package('Played'));
    const assigned = await createUser();
    const notAssigned = await createUser();
    const wikiid = 700_000 + Math.floor(Math.random() * 100_000);
    await transactWrite([
      moduleUsageWrite(moduleid, { wikiid, title: 'Line 3 induction' }),
      enrollmentWrite(assigned.userid, wikiid),
    ]);

    const usage = await api('GET', `/external_training_modules/${moduleid}/usage`, { token: admin });
    expect(usage.body).toEqual({ usage: [{ doctype: 'course', wikiid, title: 'Line 3 induction' }] });

    // Assigned, but the module has no current version yet.
    expect((await api('GET', `/external_training_modules/${moduleid}/player`, { token: assigned.token })).status).toBe(
      404,
    );
    await api('PUT', `/external_training_modules/${moduleid}/current`, { token: admin, body: { importid } });

    const played = await api('GET', `/external_training_modules/${moduleid}/player`, { token: assigned.token });
    expect(played.status).toBe(200);
    expect(played.body).toMatchObject({ moduleid, importid, title: 'Played', expires_in: 4 * 3600 });
    expect(new URL(played.body.launch_url).pathname).toMatch(
      new RegExp(`^/c/${importid}/\\d+\\.[\\w-]{43}/index\\.html$`),
    );
    expect(await (await fetch(played.body.launch_url)).text()).toContain('Played');

    expect(
      (await api('GET', `/external_training_modules/${moduleid}/player`, { token: notAssigned.token })).status,
    ).toBe(403);
    expect((await api('GET', `/external_training_modules/${moduleid}/player`, { token: admin })).status).toBe(403);
    expect((await api('GET', '/external_training_modules/999999999/player', { token: assigned.token })).status).toBe(
      404,
    );
  });
});
