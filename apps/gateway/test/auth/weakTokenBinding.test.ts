import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliArgs } from '../helpers/cliCommand.js';
import { EXAMPLES_ROOT, REPO_ROOT } from '../helpers/testGateway.js';

// `SKILLGATE_TOKEN=a` on a public bind: the token is guessed in a few tries, and since every log line has each
// token's value cut out, the logs show it too (every "a" replaced by [redacted]). serve used to start with it.

interface ServeRun {
  readonly code: number | null;
  readonly stderr: string;
  /** True when serve was still running at the deadline (it started with the token). */
  readonly started: boolean;
}

async function serve(config: string, token: string): Promise<ServeRun> {
  const args = [...cliArgs(), 'serve', '--config', config, '--port', '0'];
  try {
    const { stderr } = await promisify(execFile)(process.execPath, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, SKILLGATE_CONFIG: '', WEAK_BIND_TOKEN: token },
      // A serve that starts never exits on its own: the deadline ends it (and fails the test).
      timeout: 15_000,
      killSignal: 'SIGKILL',
    });
    return { code: 0, stderr, started: false };
  } catch (error) {
    const e = error as { code: number | null; stderr: string; killed?: boolean };
    return { code: e.code, stderr: e.stderr, started: e.killed === true };
  }
}

describe('serve bound beyond loopback with a short token', () => {
  let work: string;
  let config: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'skillgate-weak-token-'));
    config = join(work, 'skillgate.yaml');
    const yaml = [
      'server: { host: 0.0.0.0 }',
      `skills: { roots: [${JSON.stringify(EXAMPLES_ROOT)}] }`,
      'auth:',
      '  tokens:',
      '    - { name: agents, token_env: WEAK_BIND_TOKEN, skills: ["*"] }',
      '',
    ].join('\n');
    await writeFile(config, yaml);
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it.each(['a', 'changeme', '0123456789abcde'])(
    'refuses to start with the token %j, naming the variable',
    async (token) => {
      const run = await serve(config, token);
      expect(run.started).toBe(false);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('auth.tokens[0].token_env');
      expect(run.stderr).toContain('WEAK_BIND_TOKEN');
      expect(run.stderr).toContain('fewer than 16 characters');
    },
  );
});
