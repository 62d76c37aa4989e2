import { describe, expect, it } from 'vitest';
import { probeSandbox, RunnerError } from '../src/index.js';

// CI installs bubblewrap (.ci/run); these tests need it, as the sandbox suites do.
describe('probeSandbox', () => {
  it('finds a working bubblewrap under auto and bwrap', async () => {
    expect(await probeSandbox({ mode: 'auto' })).toMatchObject({ requested: 'auto', mode: 'bwrap' });
    const status = await probeSandbox({ mode: 'bwrap', network: true });
    expect(status).toMatchObject({ requested: 'bwrap', mode: 'bwrap' });
    expect(status.bwrapPath).toMatch(/\/bwrap$/);
  });

  it('falls back to off with the reason under auto when bubblewrap is missing', async () => {
    expect(await probeSandbox({ mode: 'auto', searchPath: '/nonexistent' })).toEqual({
      requested: 'auto',
      mode: 'off',
      reason: 'bubblewrap (bwrap) is not installed',
    });
  });

  it('throws SANDBOX_UNAVAILABLE under bwrap when bubblewrap is missing', async () => {
    const error = await probeSandbox({ mode: 'bwrap', searchPath: '/nonexistent' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunnerError);
    expect((error as RunnerError).code).toBe('SANDBOX_UNAVAILABLE');
    expect((error as RunnerError).message).toContain('not installed');
  });

  it('reports why when bubblewrap is there but cannot build the sandbox', async () => {
    // A bwrap that always fails stands in for a host without user namespaces.
    const status = await probeSandbox({
      mode: 'auto',
      searchPath: `${import.meta.dirname}/fixtures/broken-bwrap`,
    });
    expect(status).toMatchObject({ mode: 'off', reason: 'bwrap: No permissions to create new namespace' });
  });

  it('does not probe at all when off', async () => {
    expect(await probeSandbox({ mode: 'off', searchPath: '/nonexistent' })).toEqual({
      requested: 'off',
      mode: 'off',
    });
  });
});
