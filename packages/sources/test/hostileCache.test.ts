import { chmod, mkdir, mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestRepo, type GitServer, skillMd, startGitServer } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { materializeSources, type SourcesOptions } from '../src/index.js';

// A co-tenant on the host: a cache folder another local user can write is changed after its verification.
let server: GitServer;

beforeAll(async () => {
  server = await startGitServer();
  const repo = await createTestRepo(server, 'skills.git');
  await repo.commit({ 'report/SKILL.md': skillMd('report') });
});

afterAll(async () => {
  await server.close();
});

async function options(): Promise<SourcesOptions> {
  const work = await mkdtemp(join(tmpdir(), 'skillgate-hostile-cache-'));
  return {
    sources: [{ id: 'company', git: server.url('skills.git') }],
    lockFile: join(work, 'skillgate.lock.yaml'),
    cacheDir: join(work, 'cache'),
    timeoutMs: 30_000,
    limits: { maxBytes: 100_000, maxFiles: 1000 },
    env: { PATH: process.env.PATH },
    load: { validation: 'lenient' },
  };
}

describe('a cache folder other local users can write', () => {
  it('the cache a start creates is private to the gateway user (0700)', async () => {
    const o = await options();
    await materializeSources(o);
    expect((await stat(o.cacheDir)).mode & 0o777).toBe(0o700);
  });

  it.each([
    ['the cache folder is world-writable', '', 0o777],
    ['the cache folder is group-writable', '', 0o770],
    ['its git folder is world-writable', 'git', 0o777],
    [
      'its tmp folder is world-writable (a download swapped between its sha256 check and unpacking)',
      'tmp',
      0o1777,
    ],
  ])('is refused before anything is served from it: %s', async (_what, sub, mode) => {
    const o = await options();
    await mkdir(join(o.cacheDir, sub), { recursive: true });
    await chmod(join(o.cacheDir, sub), mode);
    const error = await materializeSources(o).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CACHE_UNSAFE' });
    expect(String(error)).toContain(join(o.cacheDir, sub).replace(/\/$/, ''));
  });

  it('is refused when a folder above it lets anyone replace it (world-writable, no sticky bit)', async () => {
    const o = await options();
    const open = join(o.cacheDir, '..', 'open');
    await mkdir(open, { recursive: true });
    await chmod(open, 0o777);
    await expect(materializeSources({ ...o, cacheDir: join(open, 'cache') })).rejects.toMatchObject({
      code: 'CACHE_UNSAFE',
    });
  });
});
