import { defineConfig } from 'vitest/config';

// Resolve workspace packages to their TypeScript sources, so tests never need a prior build.
export default defineConfig({
  resolve: { conditions: ['@skillgate/source'] },
  ssr: { resolve: { conditions: ['@skillgate/source'], externalConditions: ['@skillgate/source'] } },
  test: { include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 },
});
