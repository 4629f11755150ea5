import { defineConfig } from 'vitest/config';

// The SDK warns about Node 20 on every client; test.env below only reaches the workers.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    // One local stack (the real `npm start`, in memory) serves every API test file.
    globalSetup: ['test/support/global-setup.ts'],
    // fast-check properties run with a fixed seed unless STEPWISE_PROPERTY_SEED says otherwise.
    setupFiles: ['test/support/property-setup.ts'],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    // Local-engine tests start servers in beforeAll.
    hookTimeout: 60_000,
    // Generous for a loaded CI machine; performance is measured by `npm run bench`, not here.
    testTimeout: 60_000,
  },
});
