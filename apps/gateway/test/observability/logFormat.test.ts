import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayLogger } from '../../src/observability/createGatewayLogger.js';
import { createSecretRedactor } from '../../src/observability/redactSecrets.js';
import { cliArgs } from '../helpers/cliCommand.js';
import { EXAMPLES_ROOT, REPO_ROOT } from '../helpers/testGateway.js';

const SECRET = 'fmt-secret-token-0123456789';
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour sequences are what is removed.
const ANSI = /\u001b\[[0-9;]*m/g;

let dir: string;
let config: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillgate-logformat-'));
  config = join(dir, 'skillgate.yaml');
  await writeFile(
    config,
    [
      'server: { host: 127.0.0.1, port: 0 }',
      `skills: { roots: [${JSON.stringify(EXAMPLES_ROOT)}] }`,
      'auth: { tokens: [{ name: agent, token_env: FMT_TOKEN }] }',
      'logging: { level: debug }',
    ].join('\n'),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const SERVE = [...cliArgs(), 'serve'];

/** A running `skillgate serve`, everything it wrote so far, and its base URL. */
interface Served {
  readonly proc: ChildProcess;
  readonly output: () => string;
  readonly base: string;
}

async function serve(command: string, args: readonly string[]): Promise<Served> {
  const proc = spawn(command, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, FMT_TOKEN: SECRET },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  proc.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  let base = '';
  await waitFor(
    () => {
      if (proc.exitCode !== null) throw new Error(`skillgate serve exited early: ${out}`);
      base = /listening on (http:\/\/[\d.:]+)/.exec(out.replace(ANSI, ''))?.[1] ?? '';
      return base !== '';
    },
    { timeoutMs: 90_000, what: 'skillgate serve to listen' },
  );
  return { proc, output: () => out, base };
}

/** Sends a probe, an MCP request with the token and one with the token in the query; waits for their lines. */
async function requestAndStop(served: Served, logged: (out: string) => boolean): Promise<string> {
  await (await fetch(`${served.base}/healthz`)).text();
  const mcp = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' };
  await (await fetch(`${served.base}/mcp?access_token=${SECRET}`, mcp)).text();
  await (
    await fetch(`${served.base}/mcp`, {
      ...mcp,
      headers: { ...mcp.headers, authorization: `Bearer ${SECRET}` },
    })
  ).text();
  await waitFor(() => logged(served.output()), { what: 'the request lines' });
  const exited = new Promise((resolve) => served.proc.once('exit', resolve));
  served.proc.kill('SIGTERM');
  await exited;
  return served.output();
}

describe('log format', () => {
  it('writes one readable line per record on a terminal (a real pseudo-terminal, via script)', {
    timeout: 150_000,
  }, async () => {
    const quoted = [process.execPath, ...SERVE, '--config', config].map(
      (p) => `'${p.replaceAll("'", "'\\''")}'`,
    );
    const command = `exec ${quoted.join(' ')}`;
    const served = await serve('script', ['-qec', command, '/dev/null']);
    const out = await requestAndStop(served, (o) => o.replace(ANSI, '').includes('POST /mcp 400'));
    const lines = out
      .replace(ANSI, '')
      .split(/\r?\n/)
      .filter((l) => l.trim() !== '');
    expect(lines.filter((l) => l.trimStart().startsWith('{'))).toEqual([]);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: skillgate listening on http:\/\/127\.0\.0\.1:\d+\/mcp$/,
      ),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^\[[\d:.]+\] DEBUG: GET \/healthz 200 \d+\.\d ms/));
    expect(lines).toContainEqual(expect.stringMatching(/^\[[\d:.]+\] DEBUG: POST \/mcp 401 \d+\.\d ms/));
    expect(lines).toContainEqual(
      expect.stringMatching(/^\[[\d:.]+\] DEBUG: POST \/mcp 400 \d+\.\d ms \{"principal":"agent"\}$/),
    );
    expect(out).not.toContain(SECRET);
  });

  it('writes JSON lines when stdout is not a terminal', { timeout: 150_000 }, async () => {
    const served = await serve(process.execPath, [...SERVE, '--config', config]);
    const out = await requestAndStop(served, (o) => o.includes('"statusCode":400'));
    const records = out
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records).toContainEqual(
      expect.objectContaining({ level: 30, msg: expect.stringMatching(/^skillgate listening on http:/) }),
    );
    expect(records).toContainEqual(
      expect.objectContaining({ level: 20, req: expect.objectContaining({ url: '/healthz' }) }),
    );
    expect(out).not.toContain(SECRET);
  });

  it.each(['json', 'pretty'] as const)('removes secrets in the %s format', (format) => {
    let out = '';
    const log = createGatewayLogger({
      level: 'info',
      format,
      redact: createSecretRedactor([SECRET]),
      destination: {
        write: (line: string) => {
          out += line;
        },
      },
    });
    log.info(`a message naming ${SECRET}`);
    log.info({ headers: { authorization: 'Bearer abcdefghijklmnop' } }, 'headers');
    log.info({ req: { method: 'GET', url: `/mcp?access_token=${SECRET}` } }, 'a request');
    log.warn({ err: new Error(`failed with ghp_0123456789abcdefghijABCDEFGHIJ and ${SECRET}`) }, 'an error');
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain('abcdefghijklmnop');
    expect(out).not.toContain('ghp_0123456789');
    expect(out).toContain('[redacted]');
    expect(out.trim().split('\n')[0]?.startsWith('{')).toBe(format === 'json');
  });
});
