/** Starts one in-memory local stack for the whole run; workers read its URLs with inject(). */
import type { TestProject } from 'vitest/node';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStackProcess } from './local-stack-process.ts';

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
    // Low enough that the throttling test trips it quickly.
    STEPWISE_LOGIN_MAX_FAILURES: '5',
    STEPWISE_LOGIN_MAX_FAILURES_PER_ADDRESS: '1000',
    STEPWISE_FEATURE_FLAGS: 'dev-unify-completion-status-logic,dev-use-status-and-reason',
    // Module imports by URL fetch test packages from a server on 127.0.0.1 (the SSRF rules refuse
    // loopback otherwise; test/api/modules-url.test.ts proves both sides).
    STEPWISE_FETCH_ALLOW_HOSTS: '127.0.0.1',
    // Webhook retries (1 s, 5 s, 30 s ...) run a thousand times faster; the deliverer polls often.
    STEPWISE_WEBHOOK_DELAY_SCALE: '0.001',
    STEPWISE_DELIVERER_POLL_MS: '100',
    STEPWISE_WEBHOOK_TIMEOUT_SECONDS: '3',
  });
  project.provide('apiUrl', stack.url);
  project.provide('ddbEndpoint', stack.ddbEndpoint);
  project.provide('s3Endpoint', stack.s3Endpoint);
  project.provide('sfnEndpoint', stack.sfnEndpoint);
  project.provide('outboxDir', outboxDir);
  return () => stack.stop();
}
