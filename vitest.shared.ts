import type { ViteUserConfig } from 'vitest/config';

/**
 * The one vitest configuration every package's tests share (each package's vitest.config.ts adds only what
 * is its own). Workspace packages resolve to their TypeScript sources, so tests never need a prior build.
 */
export const sourceResolution = {
  resolve: { conditions: ['@skillgate/source'] },
  ssr: { resolve: { conditions: ['@skillgate/source'], externalConditions: ['@skillgate/source'] } },
} satisfies ViteUserConfig;

// vitest runs at most (CPUs - 1) test files at once: one on a 2-core machine. The end-to-end files mostly
// wait on real processes and sockets (a full run keeps the CPUs about a third busy), so more run at once.
// SKILLGATE_TEST_WORKERS overrides it (1 reproduces the old serial order).
const workers = Number(process.env.SKILLGATE_TEST_WORKERS ?? 4);

/** A package's test config: its tests under test/, the shared timeouts and worker count. */
export function packageTestConfig(test: NonNullable<ViteUserConfig['test']> = {}): ViteUserConfig {
  return {
    ...sourceResolution,
    test: {
      include: ['test/**/*.test.ts'],
      testTimeout: 20_000,
      hookTimeout: 20_000,
      maxWorkers: workers,
      // A worker keeps the modules it imported from one test file to the next instead of evaluating the
      // gateway, the SDK and Fastify again per file: a third less CPU for the gateway's suite. Tests start
      // their own gateways and keep no state in modules, so nothing carries from file to file.
      isolate: false,
      ...test,
    },
  };
}
