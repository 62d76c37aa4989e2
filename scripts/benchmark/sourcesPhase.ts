// Skills from git (docs/sources.md): a gateway's first start with a 200-skill git source (fetch + verify),
// a warm start from the verified cache and a start from a plain local root of the same skills, in one run;
// and the cache's disk use against the skills' own bytes.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { parseConfig } from '@skillgate/config';
import { createGateway } from '@skillgate/gateway';
import { createTestRepo, startGitServer } from '@skillgate/testkit';
import pino from 'pino';
import type { BenchContext } from './context.js';
import { generateSkills } from './support.js';
import { TARGETS } from './targets.js';

const exec = promisify(execFile);

/** Every regular file under `dir` (path relative to it) with its bytes. */
async function filesOf(dir: string): Promise<Array<[string, Buffer]>> {
  const out: Array<[string, Buffer]> = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out.push([relative(dir, path), await readFile(path)]);
  }
  return out;
}

/** Bytes of the regular files under `dir`. */
async function bytesOf(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

/** Milliseconds from createGateway() to a built catalog (the start a person waits for), then closed. */
async function startMs(input: Record<string, unknown>): Promise<{ ms: number; skills: number }> {
  const config = parseConfig(input, { baseDir: tmpdir() });
  const began = performance.now();
  const gateway = await createGateway(config, { logger: pino({ level: 'silent' }) });
  const ms = performance.now() - began;
  const skills = gateway.catalogs.current.skills.size;
  await gateway.close();
  return { ms, skills };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/** Runs the phase; returns its figures for bench-results. */
export async function sourcesBench(options: BenchContext): Promise<Record<string, number>> {
  const { row, fmt, note } = options;
  const count = 200;
  const root = await generateSkills(count, 2);
  const work = await mkdtemp(join(tmpdir(), 'skillgate-bench-sources-'));
  const git = await startGitServer();
  try {
    const repo = await createTestRepo(git, 'skills.git');
    const files = await filesOf(root);
    await repo.commit(
      Object.fromEntries(files.map(([path, bytes]) => [`skills/${path}`, bytes.toString('utf8')])),
    );
    const ownBytes = files.reduce((sum, [, bytes]) => sum + bytes.length, 0);
    const base = { scripts: { sandbox: 'off' } };
    const withSource = {
      ...base,
      skills: { roots: [await mkdtemp(join(work, 'empty-'))] },
      sources: {
        list: [{ id: 'bench', git: git.url('skills.git'), ref: 'main', path: 'skills' }],
        lock_file: join(work, 'skillgate.lock.yaml'),
        cache_dir: join(work, 'cache'),
      },
    };
    const reps = options.quick ? 1 : 3;
    const cold: number[] = [];
    const warm: number[] = [];
    const local: number[] = [];
    let served = 0;
    for (let i = 0; i < reps; i++) {
      // Cold: no lock, no cache: resolve, fetch (partial, sparse), verify, write the lock.
      await rm(join(work, 'cache'), { recursive: true, force: true });
      await rm(join(work, 'skillgate.lock.yaml'), { force: true });
      const first = await startMs(withSource);
      cold.push(first.ms);
      served = first.skills;
      warm.push((await startMs(withSource)).ms);
      local.push((await startMs({ ...base, skills: { roots: [root] } })).ms);
    }
    const [coldMs, warmMs, localMs] = [median(cold), median(warm), median(local)];
    const cacheBytes = await bytesOf(join(work, 'cache'));
    const { stdout } = await exec('du', ['-sk', join(work, 'cache')]);
    const cacheDiskKiB = Number(stdout.split('\t')[0]);
    const { stdout: ownDu } = await exec('du', ['-sk', root]);
    const ownDiskKiB = Number(ownDu.split('\t')[0]);
    row(
      'sources',
      `first start, ${count}-skill git source (fetch + verify)`,
      `${fmt(coldMs)} ms`,
      `local root ${fmt(localMs)} ms`,
      `${fmt(coldMs / localMs, 1)}x`,
      '',
    );
    row(
      'sources',
      `warm start from the verified cache (${count} skills)`,
      `${fmt(warmMs)} ms`,
      `local root ${fmt(localMs)} ms`,
      `${fmt(warmMs / localMs, 2)}x`,
      TARGETS.warmStart,
      warmMs / localMs,
    );
    row(
      'sources',
      "cache bytes vs the skills' own bytes",
      `${fmt(cacheBytes / 1024, 1)} KiB`,
      `${fmt(ownBytes / 1024, 1)} KiB`,
      `${fmt(cacheBytes / ownBytes, 2)}x`,
      TARGETS.cacheBytes,
      cacheBytes / ownBytes,
    );
    row(
      'sources',
      'cache disk use (du) vs the same skills on disk',
      `${fmt(cacheDiskKiB)} KiB`,
      `${fmt(ownDiskKiB)} KiB`,
      `${fmt(cacheDiskKiB / ownDiskKiB, 2)}x`,
      '',
    );
    note(
      `sources: ${served} skills served from the git source; a warm start reads each source twice (verify, then load), the price of verifying against the lock before serving (docs/decisions.md).`,
    );
    return { coldMs, warmMs, localMs, cacheBytes, ownBytes, cacheDiskKiB, ownDiskKiB, skills: served };
  } finally {
    await git.close();
    await rm(work, { recursive: true, force: true });
    await rm(root, { recursive: true, force: true });
  }
}
