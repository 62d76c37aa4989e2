import { defineConfig } from 'vitest/config';
import { packageTestConfig, sourceResolution } from '../../vitest.shared.js';

// Suites that speak the protocol: they run again against the SDK's StreamableHTTPServerTransport, and again
// with the direct paths off (every answer from the SDK's own path), so both stay behind the same tests.
// Upgrading @modelcontextprotocol/*: run these projects and test/directPaths first (docs/architecture.md,
// "The direct paths").
const PROTOCOL_SUITES = [
  'test/disclosure/{disclosure,modes}.test.ts',
  'test/http/http.test.ts',
  'test/scripts/scripts.test.ts',
  'test/eras/{eras,skillsExtension}.test.ts',
  'test/search/searchLevel.test.ts',
];
// Behaviour in test/, module units in test/internals/<src folder>/ (docs/architecture.md, "Tests").
const BROWSER = [
  'test/operator/operatorPage.test.ts',
  'test/usage/skillUsage.replicas.test.ts',
  'test/credentials/connectPageChromium.test.ts',
];

const shared = packageTestConfig();
// Each project keeps the shared resolution, timeouts and module reuse (an inline project inherits none of
// the root's).
const project = (name: string, test: object) => ({
  ...sourceResolution,
  test: {
    name,
    testTimeout: shared.test?.testTimeout,
    hookTimeout: shared.test?.hookTimeout,
    isolate: shared.test?.isolate,
    ...test,
  },
});

export default defineConfig({
  ...shared,
  test: {
    ...shared.test,
    projects: [
      project('native', { include: ['test/**/*.test.ts'], exclude: BROWSER }),
      // A real headless Chromium: its own project, so its start-up is not charged to the quick files.
      project('browser', { include: BROWSER }),
      project('sdk-transport', { include: PROTOCOL_SUITES, env: { SKILLGATE_TEST_TRANSPORT: 'sdk' } }),
      project('direct-off', { include: PROTOCOL_SUITES, env: { SKILLGATE_TEST_DIRECT: 'off' } }),
    ],
  },
});
