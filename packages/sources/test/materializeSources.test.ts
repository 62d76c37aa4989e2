import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestRepo,
  type FileServer,
  type GitServer,
  skillMd,
  startFileServer,
  startGitServer,
  type TestRepo,
} from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  materializeSources,
  readLockFile,
  type SourceDefinition,
  type SourcesOptions,
} from '../src/index.js';
import { sha256, tarGz, zip } from './helpers/archives.js';

const TOKEN = 'tok-9f3a7c1e5d';
let server: GitServer;
let other: GitServer;
let files: FileServer;
let company: TestRepo;
let privateRepo: TestRepo;
let work: string;
let firstCommit: string;

const good = tarGz([
  { path: 'vendor-1.4/', type: '5' },
  { path: 'vendor-1.4/skills/', type: '5' },
  { path: 'vendor-1.4/skills/vendor-a/SKILL.md', body: skillMd('vendor-a') },
  { path: 'vendor-1.4/skills/vendor-a/scripts/run.sh', body: 'echo hi\n', mode: 0o4755 },
]);
const climbing = tarGz([
  { path: 'skills/ok/SKILL.md', body: skillMd('ok') },
  { path: '../evil.txt', body: 'x' },
]);
const linking = tarGz([
  { path: 'skills/ok/SKILL.md', body: skillMd('ok') },
  { path: 'skills/ok/passwd', type: '2', linkname: '/etc/passwd' },
]);
const fifo = tarGz([{ path: 'skills/ok/pipe', type: '6' }]);
const big = tarGz([
  { path: 'skills/ok/SKILL.md', body: skillMd('ok') },
  { path: 'skills/ok/big.bin', body: 'x'.repeat(200_000) },
]);
let goodZip: Buffer;
let linkZip: Buffer;

beforeAll(async () => {
  server = await startGitServer({ tokens: { 'private.git': TOKEN } });
  // Another loopback address stands for another host: the token must never reach it.
  other = await startGitServer({ host: '127.0.0.2' });
  company = await createTestRepo(server, 'company.git');
  firstCommit = await company.commit({
    'skills/pdf-fill/SKILL.md': skillMd('pdf-fill'),
    'skills/pdf-fill/scripts/fill.py': 'print(1)\n',
    'skills/report/SKILL.md': skillMd('report'),
    'skills/other/SKILL.md': skillMd('other'),
    'README.md': 'not a skill\n',
  });
  await company.tag('v3');
  privateRepo = await createTestRepo(server, 'private.git');
  await privateRepo.commit({ 'secret-skill/SKILL.md': skillMd('secret-skill') });
  const publicElsewhere = await createTestRepo(other, 'public.git');
  await publicElsewhere.commit({ 'far-skill/SKILL.md': skillMd('far-skill') });
  goodZip = await zip({ 'zipped/SKILL.md': skillMd('zipped'), 'zipped/notes.md': 'n\n' });
  linkZip = await zip({ 'zipped/SKILL.md': skillMd('zipped'), 'zipped/link': { link: '/etc/passwd' } });
  files = await startFileServer({
    '/vendor.tar.gz': good,
    '/climb.tar.gz': climbing,
    '/link.tar.gz': linking,
    '/fifo.tgz': fifo,
    '/big.tar.gz': big,
    '/good.zip': goodZip,
    '/link.zip': linkZip,
    // A pre-signed URL, as object stores hand them out: the signature rotates.
    '/vendor.tar.gz?X-Amz-Signature=sig-first-0123456789': good,
    '/vendor.tar.gz?X-Amz-Signature=sig-second-987654321': good,
  });
});

afterAll(async () => {
  await Promise.all([server.close(), other.close(), files.close()]);
});

async function options(
  sources: readonly SourceDefinition[],
  more: Partial<SourcesOptions> = {},
): Promise<SourcesOptions> {
  work = await mkdtemp(join(tmpdir(), 'skillgate-sources-'));
  return {
    sources,
    lockFile: join(work, 'skillgate.lock.yaml'),
    cacheDir: join(work, 'cache'),
    timeoutMs: 30_000,
    limits: { maxBytes: 100_000, maxFiles: 1000 },
    env: { PATH: process.env.PATH, GIT_TOKEN: TOKEN },
    load: { validation: 'lenient' },
    ...more,
  };
}

const loadedNames = async (dir: string) => (await readdir(dir)).sort();

describe('git sources', () => {
  it('fetches a tag of a path, takes only the globbed skills, pins commit and digest in the lock', async () => {
    const o = await options([
      {
        id: 'company',
        git: server.url('company.git'),
        ref: 'v3',
        path: 'skills',
        skills: ['pdf-*', 'report'],
      },
    ]);
    const first = await materializeSources(o);
    expect(first.statuses[0]).toMatchObject({ id: 'company', state: 'fetched', commit: firstCommit });
    const root = first.roots[0];
    expect(root?.skills).toEqual(['pdf-*', 'report']);
    expect(await loadedNames(root?.dir ?? '')).toEqual(['other', 'pdf-fill', 'report']);
    const lock = await readLockFile(o.lockFile);
    expect(lock?.sources[0]?.commit).toBe(firstCommit);
    expect(Object.keys(lock?.sources[0]?.skills ?? {})).toEqual(['pdf-fill', 'report']);
    // A second start serves the same pin from the cache, with no request to the server.
    const before = server.seen.length;
    const second = await materializeSources(o);
    expect(second.statuses[0]?.state).toBe('cached');
    expect(server.seen.length).toBe(before);
  });

  it('a force-moved tag does not move a locked start; upgrade moves it', async () => {
    const o = await options([{ id: 'company', git: server.url('company.git'), ref: 'v3', path: 'skills' }]);
    await materializeSources(o);
    const moved = await company.commit({ 'skills/report/SKILL.md': skillMd('report', 'Moved on.') });
    await company.tag('v3');
    await rm(o.cacheDir, { recursive: true });
    const locked = await materializeSources(o);
    expect(locked.statuses[0]?.commit).toBe(firstCommit);
    const upgraded = await materializeSources(o, { upgrade: ['company'] });
    expect(upgraded.statuses[0]?.commit).toBe(moved);
    expect((await readLockFile(o.lockFile))?.sources[0]?.commit).toBe(moved);
  });

  it('a tampered cache is fetched again, never served', async () => {
    const o = await options([
      { id: 'company', git: server.url('company.git'), ref: firstCommit, path: 'skills' },
    ]);
    const first = await materializeSources(o);
    const dir = first.roots[0]?.dir ?? '';
    await writeFile(join(dir, 'report/SKILL.md'), skillMd('report', 'Do something evil.'));
    const warnings: string[] = [];
    const again = await materializeSources({ ...o, onWarning: (line) => warnings.push(line) });
    expect(again.statuses[0]?.state).toBe('fetched');
    expect(await readFile(join(dir, 'report/SKILL.md'), 'utf8')).toBe(skillMd('report'));
    expect(warnings.join()).toContain('does not match the lock');
  });

  it('a server that went away: a lock with a verified cache still serves; without a cache the start fails naming the source', async () => {
    const o = await options([
      { id: 'company', git: server.url('company.git'), ref: firstCommit, path: 'skills' },
    ]);
    await materializeSources(o);
    await server.stop();
    try {
      expect((await materializeSources(o)).statuses[0]?.state).toBe('cached');
      await rm(o.cacheDir, { recursive: true });
      await expect(materializeSources(o)).rejects.toMatchObject({ code: 'FETCH_FAILED', source: 'company' });
    } finally {
      await server.start();
    }
  });

  it('the private repository takes the token; it never reaches the lock, the cache path, errors or another host', async () => {
    const o = await options([
      { id: 'private', git: server.url('private.git'), token_env: 'GIT_TOKEN' },
      { id: 'far', git: other.url('public.git') },
    ]);
    const done = await materializeSources(o);
    expect(done.statuses.map((s) => s.state)).toEqual(['fetched', 'fetched']);
    expect(await readFile(o.lockFile, 'utf8')).not.toContain(TOKEN);
    expect(done.roots.map((r) => r.dir).join()).not.toContain(TOKEN);
    const basic = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
    expect(JSON.stringify(other.seen)).not.toContain(basic);
    expect(server.seen.some((r) => r.headers.authorization === `Basic ${basic}`)).toBe(true);
    // A wrong token: refused, and the error names the source but never the token.
    const wrong = await options([{ id: 'private', git: server.url('private.git'), token_env: 'GIT_TOKEN' }], {
      env: { PATH: process.env.PATH, GIT_TOKEN: 'not-the-token-123' },
    });
    const error = await materializeSources(wrong).catch((e: unknown) => e as Error);
    expect(error).toMatchObject({ code: 'FETCH_FAILED', source: 'private' });
    expect(String((error as Error).message)).not.toContain('not-the-token-123');
  });

  it('an unset token_env fails naming the variable', async () => {
    const o = await options([{ id: 'private', git: server.url('private.git'), token_env: 'NOPE_TOKEN' }]);
    await expect(materializeSources(o)).rejects.toMatchObject({ code: 'TOKEN_MISSING' });
  });

  it('a source over the file cap is refused before its content is fetched', async () => {
    const o = await options([{ id: 'company', git: server.url('company.git'), path: 'skills' }], {
      limits: { maxBytes: 100_000, maxFiles: 2 },
    });
    await expect(materializeSources(o)).rejects.toMatchObject({ code: 'TOO_LARGE', source: 'company' });
  });

  it('sync refuses a source the lock does not pin', async () => {
    const o = await options([{ id: 'company', git: server.url('company.git') }]);
    await expect(materializeSources(o, { syncOnly: true })).rejects.toMatchObject({ code: 'NOT_LOCKED' });
  });
});

describe('archive sources', () => {
  it('a good .tar.gz and .zip are verified, unpacked with capped modes, and locked by sha256', async () => {
    const o = await options([
      { id: 'vendor', archive: files.url('/vendor.tar.gz'), sha256: sha256(good), path: 'vendor-1.4/skills' },
      { id: 'zipped', archive: files.url('/good.zip'), sha256: sha256(goodZip) },
    ]);
    const done = await materializeSources(o);
    expect(done.statuses.map((s) => s.commit)).toEqual([
      `sha256:${sha256(good)}`,
      `sha256:${sha256(goodZip)}`,
    ]);
    const script = await stat(join(done.roots[0]?.dir ?? '', 'vendor-a/scripts/run.sh'));
    expect(script.mode & 0o7777).toBe(0o755);
  });

  it("keeps a pre-signed URL's query string out of the lock, and a rotated signature keeps the pin", async () => {
    const signed = (sig: string) => ({
      id: 'signed',
      archive: files.url(`/vendor.tar.gz?X-Amz-Signature=${sig}`),
      sha256: sha256(good),
    });
    const o = await options([signed('sig-first-0123456789')]);
    await materializeSources(o);
    const text = await readFile(o.lockFile, 'utf8');
    expect(text).not.toContain('sig-first');
    expect(text).not.toContain('X-Amz-Signature');
    expect(text).toContain(files.url('/vendor.tar.gz'));
    const again = await materializeSources({ ...o, sources: [signed('sig-second-987654321')] });
    expect(again.statuses[0]?.commit).toBe(`sha256:${sha256(good)}`);
    expect(await readFile(o.lockFile, 'utf8')).toBe(text);
  });

  it.each([
    ['a wrong sha256', '/vendor.tar.gz', 'SHA256_MISMATCH', '0'.repeat(64)],
    ['a ../ entry', '/climb.tar.gz', 'UNSAFE_ARCHIVE', undefined],
    ['a symlink entry', '/link.tar.gz', 'UNSAFE_ARCHIVE', undefined],
    ['a FIFO entry', '/fifo.tgz', 'UNSAFE_ARCHIVE', undefined],
    ['a zip symlink entry', '/link.zip', 'UNSAFE_ARCHIVE', undefined],
    ['an archive over the size cap', '/big.tar.gz', 'TOO_LARGE', undefined],
  ])('refuses %s whole, unpacking nothing', async (_what, path, code, pinned) => {
    const bytes =
      {
        '/vendor.tar.gz': good,
        '/climb.tar.gz': climbing,
        '/link.tar.gz': linking,
        '/fifo.tgz': fifo,
        '/link.zip': linkZip,
        '/big.tar.gz': big,
      }[path] ?? Buffer.alloc(0);
    const o = await options([{ id: 'bad', archive: files.url(path), sha256: pinned ?? sha256(bytes) }]);
    await expect(materializeSources(o)).rejects.toMatchObject({ code, source: 'bad' });
    expect(await readdir(join(o.cacheDir, 'archive')).catch(() => [])).toEqual([]);
    expect(await readdir(join(o.cacheDir, 'tmp')).catch(() => [])).toEqual([]);
  });
});
