import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestRepo,
  type GitServer,
  type RedisServer,
  skillMd,
  startGitServer,
  startRedisServer,
  type TestRepo,
} from '@skillgate/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';

let redis: RedisServer;
let git: GitServer;
let repo: TestRepo;
let work: string;

beforeAll(async () => {
  [redis, git] = await Promise.all([startRedisServer(), startGitServer()]);
  repo = await createTestRepo(git, 'team.git');
  work = await mkdtemp(join(tmpdir(), 'skillgate-replica-sources-'));
});

afterAll(async () => {
  await Promise.all([redis.close(), git.close(), rm(work, { recursive: true, force: true })]);
});

/** A replica on its own machine: its own lock path and cache, the shared Redis. */
const replica = (name: string): Promise<TestGateway> =>
  startTestGateway(
    {
      state: { backend: 'redis', key_prefix: 'sources-replicas:' },
      sources: {
        list: [{ id: 'team', git: git.url('team.git'), ref: 'main' }],
        lock_file: join(work, name, 'skillgate.lock.yaml'),
        cache_dir: join(work, name, 'cache'),
      },
    },
    { ...process.env, SKILLGATE_REDIS_URL: redis.url },
  );

const servedCommit = async (gw: TestGateway): Promise<string | undefined> => {
  const client = await connectClient(gw.url);
  try {
    const info = await client.client.callTool({ name: 'skill_team-skill_get_info', arguments: {} });
    return /Source: "team" at ([0-9a-f]{40})/.exec(textOf(info))?.[1];
  } finally {
    await client.close();
  }
};

it('replicas without a lock file serve the commit the first one resolved, even after the branch moved', async () => {
  const first = await repo.commit({ 'team-skill/SKILL.md': skillMd('team-skill', 'First version.') });
  const a = await replica('a');
  try {
    // The branch moves between the two starts: the second replica must not serve the newer commit.
    await repo.commit({ 'team-skill/SKILL.md': skillMd('team-skill', 'Second version.') });
    const b = await replica('b');
    try {
      expect(await servedCommit(a)).toBe(first);
      expect(await servedCommit(b)).toBe(first);
    } finally {
      await b.close();
    }
  } finally {
    await a.close();
  }
});
