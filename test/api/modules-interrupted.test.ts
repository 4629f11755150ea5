/**
 * An import whose execution ends without the pipeline recording it is failed as `interrupted`
 * when it is next read, and can be started again (functions/modules reconciles with
 * DescribeExecution). Here the execution is stopped from outside through the Step Functions
 * endpoint (ABORTED); test/api/crash-recovery.test.ts covers an execution lost in a crash.
 */
import { StopExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { api, loginAdmin } from '../support/api.ts';
import { scorm12Package } from '../support/module-packages.ts';
import { createImport, finished } from '../support/modules.ts';
import { servePackage, type PackageServer } from '../support/package-server.ts';

let admin: string;
let packages: PackageServer;
const sfn = () =>
  new SFNClient({
    endpoint: inject('sfnEndpoint'),
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });

/** The first execution of an import on the local stack (infra/local/environment.ts names the machine). */
const executionArn = (importid: number) =>
  `arn:aws:states:us-east-1:000000000000:execution:stepwise-module-import:import-${importid}`;

beforeAll(async () => {
  admin = await loginAdmin();
  packages = await servePackage(await scorm12Package('Restarted Course'));
});

afterAll(() => packages.close());

describe('interrupted module imports', () => {
  it('an execution stopped from outside fails the import as interrupted; it starts again and completes', async () => {
    const { importid, moduleid } = await createImport(admin);
    // By upload, with no upload: the execution waits in AwaitUpload.
    const started = await api('POST', `/external_training_modules/imports/${importid}/start/byUpload`, {
      token: admin,
    });
    expect(started.status, started.text).toBe(200);
    await sfn().send(
      new StopExecutionCommand({
        executionArn: executionArn(importid),
        error: 'Operator',
        cause: 'stopped in the console',
      }),
    );

    const failed = await finished(admin, importid);
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: 'interrupted', message: expect.stringMatching(/ABORTED/) },
    });
    // Not complete, so not promotable, until it ran again.
    expect(
      (await api('PUT', `/external_training_modules/${moduleid}/current`, { token: admin, body: { importid } })).status,
    ).toBe(422);

    const again = await api('POST', `/external_training_modules/imports/${importid}/start/byUrl`, {
      token: admin,
      body: { url: packages.url },
    });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ status: 'running', error: null });
    expect(await finished(admin, importid)).toMatchObject({ status: 'complete', percent: 100, error: null });
    const promoted = await api('PUT', `/external_training_modules/${moduleid}/current`, {
      token: admin,
      body: { importid },
    });
    expect(promoted.status, promoted.text).toBe(200);
    // Only an interrupted import restarts: a complete one answers 409.
    expect(
      (
        await api('POST', `/external_training_modules/imports/${importid}/start/byUrl`, {
          token: admin,
          body: { url: packages.url },
        })
      ).status,
    ).toBe(409);
  });

  it('a restart wins once: two concurrent starts of an interrupted import give one 200 and one 409', async () => {
    const { importid } = await createImport(admin);
    const started = await api('POST', `/external_training_modules/imports/${importid}/start/byUpload`, {
      token: admin,
    });
    expect(started.status).toBe(200);
    await sfn().send(new StopExecutionCommand({ executionArn: executionArn(importid) }));
    expect(await finished(admin, importid)).toMatchObject({ status: 'failed', error: { code: 'interrupted' } });

    const starts = await Promise.all(
      [1, 2].map(() =>
        api('POST', `/external_training_modules/imports/${importid}/start/byUrl`, {
          token: admin,
          body: { url: packages.url },
        }),
      ),
    );
    expect(starts.map((response) => response.status).sort()).toEqual([200, 409]);
    expect(await finished(admin, importid)).toMatchObject({ status: 'complete' });
  });
});
