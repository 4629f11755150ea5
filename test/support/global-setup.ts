/**
 * Starts one in-memory local stack for the whole run; workers read its URLs with inject(). The api
 * and browser projects (vitest.config.ts) both name this file: the first to set up starts the stack,
 * the other shares it (kept on the main process's globalThis, which both projects' setups see), and
 * the last to tear down audits the table and stops it.
 */
import type { TestProject } from 'vitest/node';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStackProcess } from './local-stack-process.ts';
import { LRS_CREDENTIALS, startLrs } from './lrs.ts';
import { testSiteEnvironment } from '../../infra/verify/test-site-settings.ts';
import { localDynamoClient } from './local-db.ts';
import { auditReport, auditTable } from './table-audit.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    apiUrl: string;
    ddbEndpoint: string;
    s3Endpoint: string;
    sfnEndpoint: string;
    outboxDir: string;
    lrsEndpoint: string;
  }
}

/** The test stack's table (infra/local/environment.ts); the audit reads no other. */
const TEST_TABLE = 'stepwise';

interface TestStack {
  apiUrl: string;
  ddbEndpoint: string;
  s3Endpoint: string;
  sfnEndpoint: string;
  outboxDir: string;
  lrsEndpoint: string;
  stop(): Promise<void>;
}

interface Shared {
  stack: Promise<TestStack>;
  users: number;
}

const SHARED = Symbol.for('stepwise.test-stack');
const holder = globalThis as typeof globalThis & { [SHARED]?: Shared };

async function startTestStack(): Promise<TestStack> {
  const outboxDir = mkdtempSync(join(tmpdir(), 'stepwise-outbox-'));
  // xAPI statements go to a small LRS of the test run (test/api/xapi.test.ts reads it back).
  const lrs = await startLrs();
  const stack = await startStackProcess({
    STEPWISE_OUTBOX_DIR: outboxDir,
    STEPWISE_ADMIN_EMAIL: 'admin@example.com',
    STEPWISE_ADMIN_PASSWORD: 'stepwise-admin',
    ...testSiteEnvironment(),
    // Webhook retries (1 s, 5 s, 30 s ...) run a thousand times faster; the deliverer polls often.
    STEPWISE_WEBHOOK_DELAY_SCALE: '0.001',
    STEPWISE_DELIVERER_POLL_MS: '100',
    // The notice sweep runs by route in the tests, with their clock (test/api/notices.test.ts).
    STEPWISE_NOTICE_SWEEP_MS: '0',
    STEPWISE_CMI5_ABANDON_SWEEP_MS: '0',
    STEPWISE_WEBHOOK_TIMEOUT_SECONDS: '3',
    STEPWISE_XAPI_ENDPOINT: lrs.endpoint,
    STEPWISE_XAPI_USERNAME: LRS_CREDENTIALS.username,
    STEPWISE_XAPI_PASSWORD: LRS_CREDENTIALS.password,
  }).catch(async (error) => {
    await lrs.close();
    throw error;
  });
  return {
    apiUrl: stack.url,
    ddbEndpoint: stack.ddbEndpoint,
    s3Endpoint: stack.s3Endpoint,
    sfnEndpoint: stack.sfnEndpoint,
    outboxDir,
    lrsEndpoint: lrs.endpoint,
    async stop() {
      // Audited while the stack still runs. vitest 4 only prints an error a teardown throws ("error
      // during close") and exits 0, so a finding (or an audit that could not run) also sets the
      // exit code: it fails `npm test`.
      const dynamo = localDynamoClient(stack.ddbEndpoint);
      try {
        const audit = await auditTable(dynamo, TEST_TABLE);
        if (audit.findings.length > 0) throw new Error(auditReport(audit));
      } catch (error) {
        process.exitCode = 1;
        throw error;
      } finally {
        dynamo.destroy();
        await stack.stop();
        await lrs.close();
      }
    },
  };
}

export default async function setup(project: TestProject) {
  holder[SHARED] ??= { stack: startTestStack(), users: 0 };
  const shared = holder[SHARED];
  shared.users += 1;
  const stack = await shared.stack;
  project.provide('apiUrl', stack.apiUrl);
  project.provide('ddbEndpoint', stack.ddbEndpoint);
  project.provide('s3Endpoint', stack.s3Endpoint);
  project.provide('sfnEndpoint', stack.sfnEndpoint);
  project.provide('outboxDir', stack.outboxDir);
  project.provide('lrsEndpoint', stack.lrsEndpoint);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete holder[SHARED];
    await stack.stop();
  };
}
