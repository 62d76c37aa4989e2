import { defineConfig } from 'vitest/config';

const shared = {
  // Resolve workspace packages to their TypeScript sources, so tests never need a prior build.
  resolve: { conditions: ['@skillgate/source'] },
  ssr: { resolve: { conditions: ['@skillgate/source'], externalConditions: ['@skillgate/source'] } },
};

// The end-to-end suites run against the default (native) transport; the protocol-level ones run again
// against the SDK's StreamableHTTPServerTransport, so both stay behind the same tests.
export default defineConfig({
  ...shared,
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    projects: [
      {
        ...shared,
        test: { name: 'native', include: ['test/**/*.test.ts'], testTimeout: 20_000, hookTimeout: 20_000 },
      },
      {
        ...shared,
        test: {
          name: 'sdk-transport',
          include: ['test/{disclosure,http,modes,scripts}.test.ts'],
          env: { SKILLGATE_TEST_TRANSPORT: 'sdk' },
          testTimeout: 20_000,
          hookTimeout: 20_000,
        },
      },
    ],
  },
});
