/**
 * `npm run verify:deploy [test files...]`: what deploys is what was tested.
 * 1. Synthesizes the CDK app (offline) into .verify/cdk.out, with the test stack's settings as
 *    context (infra/verify/test-site-settings.ts).
 *    Every side bundle of every function must load (infra/verify/side-bundles.ts).
 * 2. Runs the API tests (default: all of test/api) against the local stack serving every
 *    route, the S3 trigger and the import pipeline from the synthesized bundles and template
 *    (STEPWISE_FUNCTIONS=bundles), every AWS call checked against its function's role.
 * 3. Prints the IAM report; fails on a failed test, a denied or unattributed call, or a grant
 *    no code in the function's bundle can use (infra/verify/bundle-reach.ts).
 * Kept out of `npm test`: synthesis with bundling takes about half a minute.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../repo-paths.ts';
import { iamReport, type StackIamFile } from './iam-check.ts';
import { checkSideBundles } from './side-bundles.ts';
import { TEST_SITE_SETTINGS } from './test-site-settings.ts';

// Inside the repository: sharp's JavaScript in a bundle's node_modules then finds the host's
// native sharp (node_modules/@img/sharp-<platform>) by Node's parent-folder lookup, where the
// bundle's own linux-arm64 binary cannot load (docs/deploy-verification.md).
const VERIFY_DIR = join(REPO_ROOT, '.verify');
const CDK_OUT = join(VERIFY_DIR, 'cdk.out');
/** Each bundle-mode stack writes its findings here when it stops; merged below. */
const IAM_REPORT_DIR = join(VERIFY_DIR, 'iam');

function run(command: string, args: string[], env: Record<string, string> = {}): number {
  const result = spawnSync(command, args, { cwd: REPO_ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status ?? 1;
}

const started = Date.now();
rmSync(IAM_REPORT_DIR, { recursive: true, force: true });
mkdirSync(IAM_REPORT_DIR, { recursive: true });

console.log('verify:deploy — 1/3 synthesizing the CDK app into .verify/cdk.out');
const context = Object.entries(TEST_SITE_SETTINGS).flatMap(([key, { value }]) => ['-c', `stepwise:${key}=${value}`]);
const synth = run('npx', ['cdk', 'synth', '--quiet', '-o', CDK_OUT, ...context], { CDK_DISABLE_VERSION_CHECK: '1' });
if (synth !== 0) process.exit(synth);
const sideBundles = checkSideBundles(CDK_OUT);
for (const failure of sideBundles.failures) console.error(`Side bundle: ${failure}`);
if (sideBundles.failures.length > 0) process.exit(1);
console.log(`verify:deploy — ${sideBundles.loaded} side bundle(s) load with their function's environment`);

/**
 * These start stacks of their own with settings the synthesized template does not carry (other
 * languages, feature flags off, a public site, xAPI, which CDK does not wire yet; one image slot
 * and a 100 ms decode deadline; DEBUG logs read from the stack's output) or test `npm start`'s
 * data folder across restarts: they are about the local stack, not about what deploys.
 */
const NOT_ABOUT_THE_DEPLOYMENT = [
  'test/api/glossary.test.ts',
  'test/api/course-flags-off.test.ts',
  'test/api/persistence.test.ts',
  'test/api/site-access.test.ts',
  'test/api/pages-public-site.test.ts',
  'test/api/xapi.test.ts',
  'test/api/media-limits.test.ts',
  'test/api/request-id.test.ts',
  // A stack of its own with password sign-in limited to Admins and remote login as the provider.
  'test/api/sso-sign-in-methods.test.ts',
  // The same, with a key of its own (STEPWISE_SECRETS_KEY) that the rotation re-seals.
  'test/api/sso-secrets-rotation.test.ts',
  // The local engines under fault and crash (the stack's own processes, not a deployment's).
  'test/api/crash-recovery.test.ts',
  'test/api/login-throttle.test.ts',
  'test/api/offline-sync-crash.test.ts',
  'test/api/pipeline-faults.test.ts',
  'test/api/search-indexer-thread.test.ts',
  'test/api/webhook-deliverer.test.ts',
];

const testFiles = process.argv.slice(2);
console.log(
  `verify:deploy — 2/3 API tests against the synthesized bundles: ` +
    `${testFiles.length ? testFiles.join(' ') : `test/api except ${NOT_ABOUT_THE_DEPLOYMENT.join(', ')}`}`,
);
const testArgs = testFiles.length
  ? testFiles
  : ['test/api', ...NOT_ABOUT_THE_DEPLOYMENT.flatMap((file) => ['--exclude', file])];
const tests = run('npx', ['vitest', 'run', ...testArgs], {
  STEPWISE_FUNCTIONS: 'bundles',
  STEPWISE_CDK_OUT: CDK_OUT,
  STEPWISE_IAM_REPORT_DIR: IAM_REPORT_DIR,
});

console.log('\nverify:deploy — 3/3 IAM report (every AWS call of every function, checked against its role)');
const stackFiles = readdirSync(IAM_REPORT_DIR).map(
  (file) => JSON.parse(readFileSync(join(IAM_REPORT_DIR, file), 'utf8')) as StackIamFile,
);
if (stackFiles.length === 0) {
  console.error('IAM: no stack wrote its findings (did the local stack start and stop?)');
  process.exit(1);
}
const report = iamReport(stackFiles.map((file) => file.findings));
console.log(report.text);
for (const { feedSummary } of stackFiles) if (feedSummary) console.log(feedSummary);
const seconds = ((Date.now() - started) / 1000).toFixed(0);
if (tests !== 0 || !report.ok) {
  const reasons = [
    ...(tests !== 0 ? ['API tests failed'] : []),
    ...(!report.ok ? ['IAM: denied calls or grants no code can use'] : []),
  ];
  console.error(`\nverify:deploy FAILED in ${seconds} s: ${reasons.join('; ')}`);
  process.exit(1);
}
console.log(
  `\nverify:deploy passed in ${seconds} s: the synthesized bundles served the tests, and IAM allowed every ` +
    `call they made.`,
);
