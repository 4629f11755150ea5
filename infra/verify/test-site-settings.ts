/**
 * The settings the API tests run the local stack with. One list for two readers: the vitest
 * global setup passes them as environment variables; `npm run verify:deploy` synthesizes the
 * CDK app with the same values as `stepwise:*` context, so the bundles' template environment
 * matches what the tests expect.
 */
export const TEST_SITE_SETTINGS = {
  // Low enough that the throttling test trips it quickly.
  loginMaxFailures: { env: 'STEPWISE_LOGIN_MAX_FAILURES', value: '5' },
  loginMaxFailuresPerAddress: { env: 'STEPWISE_LOGIN_MAX_FAILURES_PER_ADDRESS', value: '1000' },
  featureFlags: { env: 'STEPWISE_FEATURE_FLAGS', value: 'dev-unify-completion-status-logic,dev-use-status-and-reason' },
  // Module imports by URL fetch test packages from a server on 127.0.0.1 (the SSRF rules refuse
  // loopback otherwise; test/api/modules-url.test.ts proves both sides).
  fetchAllowHosts: { env: 'STEPWISE_FETCH_ALLOW_HOSTS', value: '127.0.0.1' },
  logLevel: { env: 'LOG_LEVEL', value: 'WARN' },
} as const;

export function testSiteEnvironment(): Record<string, string> {
  return Object.fromEntries(Object.values(TEST_SITE_SETTINGS).map(({ env, value }) => [env, value]));
}
