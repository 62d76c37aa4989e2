import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliArgs } from '../helpers/cliCommand.js';
import {
  connectClient,
  EXAMPLES_ROOT,
  REPO_ROOT,
  startTestGateway,
  type TestGateway,
} from '../helpers/testGateway.js';

// A careless operator's start-ups: each must end at once with one line naming what is wrong (exit 1, no
// stack trace), and a gateway already serving must not notice.

interface Outcome {
  readonly code: number | null;
  readonly stderr: string;
}

/** Runs `skillgate serve --config <file>` and resolves when it exits (the test timeout catches a hang). */
function serve(config: string, env: NodeJS.ProcessEnv): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...cliArgs(), 'serve', '--config', config],
      { cwd: REPO_ROOT, env: { ...process.env, SKILLGATE_CONFIG: '', ...env } },
      (error, _stdout, stderr) => resolve({ code: error === null ? 0 : (error.code as number), stderr }),
    );
  });
}

/** The whole of stderr is one line starting `skillgate:`, with no stack frame in it. */
function expectOneClearLine(outcome: Outcome, ...needles: string[]): void {
  expect(outcome.code).toBe(1);
  const lines = outcome.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^skillgate: /);
  expect(outcome.stderr).not.toMatch(/\n\s+at /);
  for (const needle of needles) expect(lines[0]).toContain(needle);
}

let dir: string;
let running: TestGateway;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillgate-startup-'));
  running = await startTestGateway();
});
afterAll(async () => {
  await running.close();
  await rm(dir, { recursive: true, force: true });
});

const configFile = async (name: string, lines: string[]): Promise<string> => {
  const file = join(dir, name);
  // Real roots, so each case fails only for its own reason (a missing root is its own clean failure:
  // realClients/hosts.test.ts).
  const roots = `skills: { roots: [${JSON.stringify(EXAMPLES_ROOT)}] }`;
  await writeFile(file, `${[...lines, roots].join('\n')}\n`);
  return file;
};

describe.concurrent('start-up that does not fail cleanly', { timeout: 60_000 }, () => {
  it('a port in use: one line naming the address, exit 1, and the gateway on it keeps serving', async () => {
    const port = Number(new URL(running.base).port);
    const config = await configFile('port.yaml', [`server: { host: 127.0.0.1, port: ${port} }`]);
    expectOneClearLine(await serve(config, {}), `127.0.0.1:${port}`, 'in use', 'EADDRINUSE');
    const healthy = await connectClient(running.url);
    expect((await healthy.client.listTools()).tools.length).toBeGreaterThan(0);
    await healthy.close();
  });

  it('a missing Redis URL: one line naming the variable, exit 1', async () => {
    const config = await configFile('no-url.yaml', [
      'server: { port: 0 }',
      'state: { backend: redis, redis_url_env: DOS_TEST_REDIS_URL }',
    ]);
    expectOneClearLine(await serve(config, {}), 'state.redis_url_env', 'DOS_TEST_REDIS_URL', 'no Redis URL');
  });

  it.each([
    ['an http URL', 'http://127.0.0.1:6379', '"http:"'],
    ['a bare host', 'localhost:6379', '"localhost:"'],
  ])(
    'SKILLGATE_REDIS_URL that is %s is refused at start (no retry loop), without echoing it',
    async (_l, url, named) => {
      const config = await configFile(`bad-url-${named.length}.yaml`, [
        'server: { port: 0 }',
        'state: { backend: redis }',
      ]);
      const outcome = await serve(config, { SKILLGATE_REDIS_URL: url });
      expectOneClearLine(outcome, 'SKILLGATE_REDIS_URL', 'redis://, rediss:// or unix:', named);
      expect(outcome.stderr).not.toContain(url);
    },
  );
});
