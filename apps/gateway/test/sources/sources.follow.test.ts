import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestRepo,
  type GitServer,
  skillMd,
  startGitServer,
  type TestRepo,
  waitFor,
} from '@skillgate/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectClient, startTestGateway, textOf } from '../helpers/testGateway.js';
import { connectV2 } from '../helpers/v2Client.js';

let git: GitServer;
let repo: TestRepo;
let work: string;

beforeAll(async () => {
  git = await startGitServer();
  repo = await createTestRepo(git, 'followed.git');
  work = await mkdtemp(join(tmpdir(), 'skillgate-follow-'));
});

afterAll(async () => {
  await Promise.all([git.close(), rm(work, { recursive: true, force: true })]);
});

it('a followed branch takes a new commit through the ordinary reload: swapped in, sessions told, lock rewritten', async () => {
  await repo.commit({ 'live-skill/SKILL.md': skillMd('live-skill', 'Version one.') });
  const lockFile = join(work, 'skillgate.lock.yaml');
  const gw = await startTestGateway({
    sources: {
      list: [{ id: 'live', git: git.url('followed.git'), ref: 'main' }],
      lock_file: lockFile,
      cache_dir: join(work, 'cache'),
      follow: { interval_seconds: 0.2 },
    },
  });
  try {
    const legacy = await connectClient(gw.url);
    const modern = await connectV2(gw.url, { era: 'modern' });
    const before = (await legacy.client.listTools()).tools.find(
      (t) => t.name === 'skill_live-skill_get_info',
    );
    expect(before?.description).toBe('Version one.');
    const moved = await repo.commit({ 'live-skill/SKILL.md': skillMd('live-skill', 'Version two.') });
    await waitFor(() => legacy.listChanged() === 1, { what: 'one list_changed to the 2025 session' });
    const after = (await legacy.client.listTools()).tools.find((t) => t.name === 'skill_live-skill_get_info');
    expect(after?.description).toBe('Version two.');
    const info = await modern.client.callTool({ name: 'skill_live-skill_get_info', arguments: {} });
    expect(textOf(info)).toContain(`Source: "live" at ${moved}`);
    expect(await readFile(lockFile, 'utf8')).toContain(moved);
    await Promise.all([legacy.close(), modern.close()]);
  } finally {
    await gw.close();
  }
});
