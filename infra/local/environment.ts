import { projectVersion } from '../repo-paths.ts';

/**
 * Environment defaults for running locally (npm start, tests, bench). Set before any module
 * that reads shared/config is used: SDK clients are created from it on first use.
 */
export function applyLocalEnvironment(overrides: Record<string, string | undefined> = {}): void {
  const defaults: Record<string, string> = {
    STEPWISE_RUNTIME: 'local',
    STEPWISE_VERSION: projectVersion(),
    AWS_REGION: 'us-east-1',
    TABLE_NAME: 'stepwise',
    MEDIA_BUCKET: 'stepwise-media',
    MODULES_BUCKET: 'stepwise-modules',
    MODULE_IMPORT_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:stepwise-module-import',
    SITE_EXPORT_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:stepwise-site-export',
    SITE_IMPORT_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:stepwise-site-import',
    // Site export/import steps are short locally, so a small site still spans several parts and steps.
    STEPWISE_TRANSFER_STEP_SECONDS: '2',
    STEPWISE_TRANSFER_PART_BYTES: String(64 * 1024),
    // The S3 emulator cannot check the SDK's default streaming checksums (docs/local-stack.md, "Measured facts").
    AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
    AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
    // EMF metrics are for CloudWatch; locally they would only clutter the output.
    POWERTOOLS_METRICS_DISABLED: 'true',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  };
  for (const [name, value] of Object.entries({ ...defaults, ...overrides })) {
    if (value !== undefined && process.env[name] === undefined) process.env[name] = value;
  }
}
