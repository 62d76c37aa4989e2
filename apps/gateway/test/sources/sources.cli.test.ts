import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestRepo, type GitServer, skillMd, startGitServer, type TestRepo } from '@skillgate/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliArgs } from '../helpers/cliCommand.js';
import { REPO_ROOT } from '../helpers/testGateway.js';

const run = promisify(execFile);
const TOKEN = 'cli-secret-token-5f0d1b';
let git: GitServer;
let repo: TestRepo;
let work: string;
let config: string;

/** Runs the real CLI in a child process; resolves with its exit code and output whatever the code. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...cliArgs(), ...args, '--config', config], {
      cwd: REPO_ROOT,
      env: { ...process.env, SKILLGATE_CONFIG: '', TEAM_TOKEN: TOKEN, XDG_CACHE_HOME: join(work, 'cache') },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  git = await startGitServer({ tokens: { 'team.git': TOKEN } });
  repo = await createTestRepo(git, 'team.git');
  work = await mkdtemp(join(tmpdir(), 'skillgate-sources-cli-'));
  config = join(work, 'skillgate.yaml');
  await writeFile(
    config,
    `skills:\n  roots: [${join(REPO_ROOT, 'examples/skills')}]\nsources:\n  list:\n    - { id: team, git: "${git.url('team.git')}", ref: v1, token_env: TEAM_TOKEN }\n`,
  );
});

afterAll(async () => {
  await Promise.all([git.close(), rm(work, { recursive: true, force: true })]);
});

it('sources, check, upgrade and sync: a moved tag is reported (exit 2) and moves the pin only on upgrade', async () => {
  const v1 = await repo.commit({ 'team-skill/SKILL.md': skillMd('team-skill') });
  await repo.tag('v1', 'release 1');
  // Not locked yet: check says so (exit 2); validate resolves, writes the lock and names the source.
  expect((await cli('sources', 'check')).code).toBe(2);
  const validated = await cli('validate');
  expect(validated.stdout).toContain(`source  team: 1 skills at ${v1}`);
  expect((await cli('sources', 'check')).code).toBe(0);

  const v2 = await repo.commit({ 'team-skill/SKILL.md': skillMd('team-skill', 'Moved.') });
  await repo.tag('v1', 'release 1, moved');
  const listed = await cli('sources', '--json');
  expect(JSON.parse(listed.stdout)).toEqual([
    expect.objectContaining({ id: 'team', commit: v1, behind: true }),
  ]);
  const checked = await cli('sources', 'check');
  expect(checked.code).toBe(2);
  expect(checked.stdout).toContain('behind');

  const upgraded = await cli('sources', 'upgrade', 'team');
  expect(upgraded.code).toBe(0);
  const lock = await readFile(join(work, 'skillgate.lock.yaml'), 'utf8');
  expect(lock).toContain(v2);
  expect((await cli('sources', 'check')).code).toBe(0);

  // sync fetches exactly the lock into an empty cache.
  await rm(join(work, 'cache'), { recursive: true, force: true });
  const synced = await cli('sources', 'sync');
  expect(synced.code).toBe(0);
  expect(synced.stdout).toMatch(new RegExp(`team\\s+fetched\\s+${v2}`));

  for (const out of [validated, listed, checked, upgraded, synced]) {
    expect(out.stdout + out.stderr).not.toContain(TOKEN);
  }
  expect(lock).not.toContain(TOKEN);
  expect((await cli('sources', 'upgrade', 'nope')).code).toBe(2);
  // Ten CLI runs, each a fresh node process compiling the CLI.
}, 120_000);
