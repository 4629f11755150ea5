import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    // One local stack (the real `npm start`, in memory) serves every API test file.
    globalSetup: ['test/support/global-setup.ts'],
    // fast-check properties run with a fixed seed unless STEPWISE_PROPERTY_SEED says otherwise.
    setupFiles: ['test/support/property-setup.ts'],
    // Local-engine tests start servers in beforeAll.
    hookTimeout: 60_000,
    // Generous for a loaded CI machine; performance is measured by `npm run bench`, not here.
    testTimeout: 60_000,
  },
});
