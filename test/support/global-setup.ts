/** Starts one in-memory local stack for the whole run; workers read its URLs with inject(). */
import type { TestProject } from 'vitest/node';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStackProcess } from './local-stack-process.ts';
import { testSiteEnvironment } from './stack-settings.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    apiUrl: string;
    ddbEndpoint: string;
    s3Endpoint: string;
    sfnEndpoint: string;
    outboxDir: string;
  }
}

export default async function setup(project: TestProject) {
  const outboxDir = mkdtempSync(join(tmpdir(), 'stepwise-outbox-'));
  const stack = await startStackProcess({
    STEPWISE_OUTBOX_DIR: outboxDir,
    STEPWISE_ADMIN_EMAIL: 'admin@example.com',
    STEPWISE_ADMIN_PASSWORD: 'stepwise-admin',
    ...testSiteEnvironment(),
  });
  project.provide('apiUrl', stack.url);
  project.provide('ddbEndpoint', stack.ddbEndpoint);
  project.provide('s3Endpoint', stack.s3Endpoint);
  project.provide('sfnEndpoint', stack.sfnEndpoint);
  project.provide('outboxDir', outboxDir);
  return () => stack.stop();
}
