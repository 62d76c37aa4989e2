import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstat, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestRepo, type GitServer, skillMd, startGitServer, waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { materializeSources, type SourcesOptions } from '../src/index.js';

// A git server that sends more than sources.max_bytes: what reaches the disk before the source is refused.
const exec = promisify(execFile);
const CAP = 1_000_000;
// What the gateway allows git beyond the cap for its own metadata (index, pack indexes, trees).
const ALLOWANCE = 4 * 1024 * 1024;
let server: GitServer;

beforeAll(async () => {
  server = await startGitServer();
  // ~18 MB of incompressible text: its pack is far over the cap.
  const noise = randomBytes(18_000_000).toString('base64');
  const big = await createTestRepo(server, 'big.git');
  await big.commit({ 'skills/report/SKILL.md': skillMd('report'), 'skills/report/noise.txt': noise });
  // The same, from a server that does not do partial clones: every blob comes in the first fetch.
  const unfiltered = await createTestRepo(server, 'unfiltered.git');
  await unfiltered.commit({ 'skills/report/SKILL.md': skillMd('report'), 'skills/report/noise.txt': noise });
  await exec('git', ['config', 'uploadpack.allowFilter', 'false'], {
    cwd: join(server.root, 'unfiltered.git'),
  });
  // 48 MB of zeros: a pack of a few KB that the checkout inflates.
  const bomb = await createTestRepo(server, 'bomb.git');
  await bomb.commit({
    'skills/report/SKILL.md': skillMd('report'),
    'skills/report/zeros.bin': '\0'.repeat(48e6),
  });
}, 120_000);

afterAll(async () => {
  await server.close();
});

async function options(repo: string): Promise<SourcesOptions> {
  const work = await mkdtemp(join(tmpdir(), 'skillgate-hostile-git-download-'));
  return {
    sources: [{ id: 'big', git: server.url(repo), path: 'skills' }],
    lockFile: join(work, 'skillgate.lock.yaml'),
    cacheDir: join(work, 'cache'),
    timeoutMs: 60_000,
    limits: { maxBytes: CAP, maxFiles: 1000 },
    env: { PATH: process.env.PATH },
    load: { validation: 'lenient' },
  };
}

/** Bytes of the regular files under `dir` (0 when it is gone). */
async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isFile())
      total += await lstat(join(entry.parentPath, entry.name)).then(
        (s) => s.size,
        () => 0,
      );
  }
  return total;
}

describe('git downloads over the byte cap', () => {
  it.each([
    ['a blob over the cap fetched at checkout (partial clone) is stopped at the cap', 'big.git'],
    ['a server that ignores the blob filter is stopped at the cap in the first fetch', 'unfiltered.git'],
    ['a small pack that the checkout inflates past the cap is stopped at the cap', 'bomb.git'],
  ])('%s', async (_what, repo) => {
    const o = await options(repo);
    const run = materializeSources(o);
    let settled = false;
    run.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    // Measured from outside while git runs: the most bytes the fetch ever held on disk.
    let peak = 0;
    await waitFor(
      async () => {
        peak = Math.max(peak, await bytesUnder(o.cacheDir));
        return settled;
      },
      { timeoutMs: 90_000, intervalMs: 5, what: 'the fetch to end' },
    );
    await expect(run).rejects.toMatchObject({ code: 'TOO_LARGE', source: 'big' });
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(CAP + ALLOWANCE + 256 * 1024);
    expect(await bytesUnder(o.cacheDir)).toBe(0);
  });
});
