import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectClient,
  startTestGateway,
  type TestClient,
  type TestGateway,
  textOf,
} from '../helpers/testGateway.js';

let gw: TestGateway;
let c: TestClient;
beforeAll(async () => {
  gw = await startTestGateway(
    {
      scripts: {
        default_timeout_seconds: 5,
        max_timeout_seconds: 10,
        max_output_bytes: 64 * 1024,
        kill_grace_ms: 300,
      },
      resources: { max_text_bytes: 256 * 1024 },
    },
    { ...process.env, SKILLGATE_SECRET: 'hunter2' },
  );
  c = await connectClient(gw.url);
  for (const skill of [
    'gateway-probe',
    'text-stats',
    'log-triage',
    'brand-assets',
    'csv-tools',
    'repo-hygiene',
  ]) {
    await c.client.callTool({ name: `skill_${skill}_get_info`, arguments: {} });
  }
});
afterAll(async () => {
  await c.close();
  await gw.close();
});

type Structured = {
  exit_code: number | null;
  timed_out: boolean;
  stdout: string;
  stderr: string;
  stdout_truncated: boolean;
  stdout_bytes: number;
  duration_ms: number;
};
const run = async (name: string, args: Record<string, unknown> = {}) => {
  const result = await c.client.callTool({ name, arguments: args });
  return { result, s: result.structuredContent as Structured };
};

describe('run tools', () => {
  it('runs a Python script with stdin and returns its output as text and structured content', async () => {
    const { result, s } = await run('skill_text-stats_run_stats_py', { stdin: 'the cat the dog\nthe end\n' });
    expect(result.isError).toBeFalsy();
    expect(s.exit_code).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({ lines: 2, words: 6 });
    expect(textOf(result)).toContain('exit code 0');
  });

  it('passes args with spaces, quotes and unicode verbatim, never through a shell', async () => {
    const args = ['a b', '"quoted"', "it's", '$(whoami)', '; rm -rf /', 'héllo ✓ 日本'];
    const { s } = await run('skill_gateway-probe_run_echo-args_py', { args });
    expect(JSON.parse(s.stdout)).toEqual(args);
  });

  it('reports a non-zero exit as a tool error with stderr', async () => {
    const { result, s } = await run('skill_gateway-probe_run_fail_sh');
    expect(result.isError).toBe(true);
    expect(s.exit_code).toBe(3);
    expect(s.stderr).toContain('boom');
    expect(s.stdout).toContain('partial');
  });

  it('kills a script that ignores SIGTERM at its timeout, children included', async () => {
    const started = Date.now();
    const { result, s } = await run('skill_gateway-probe_run_hang_sh', { timeout: 1 });
    expect(result.isError).toBe(true);
    expect(s.timed_out).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('caps a flood of output, keeps the tail and reports the byte count', async () => {
    const { s } = await run('skill_gateway-probe_run_flood_py', { args: ['--bytes', '3000000'] });
    expect(s.exit_code).toBe(0);
    expect(s.stdout_truncated).toBe(true);
    expect(s.stdout_bytes).toBeGreaterThanOrEqual(3_000_000);
    expect(Buffer.byteLength(s.stdout)).toBeLessThanOrEqual(64 * 1024);
  });

  it('returns only the requested number of tail lines', async () => {
    const { s } = await run('skill_gateway-probe_run_slow_py', { args: ['--seconds', '0.5'], tail: 2 });
    expect(s.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(s.stdout).toContain('finished');
  });

  it('scrubs the environment: secrets stay out, SKILL_NAME and SKILL_DIR are set, cwd is the skill dir', async () => {
    const { s } = await run('skill_gateway-probe_run_env_py');
    const env = JSON.parse(s.stdout) as Record<string, string>;
    expect(env.SKILLGATE_SECRET).toBeUndefined();
    expect(env.SKILL_NAME).toBe('gateway-probe');
    expect(env.__cwd__).toBe(env.SKILL_DIR);
    expect(
      Object.keys(env).every((k) =>
        ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'SKILL_NAME', 'SKILL_DIR', '__cwd__'].includes(k),
      ),
    ).toBe(true);
  });

  it('runs a bash script that exits 2 with a message when stdin is empty', async () => {
    const { result, s } = await run('skill_log-triage_run_triage_sh');
    expect(result.isError).toBe(true);
    expect(s.exit_code).toBe(2);
    expect(s.stderr).toContain('no log lines');
  });

  it('runs a Node script and an executable shebang script', async () => {
    const node = await run('skill_brand-assets_run_contrast_mjs', { args: ['#000000', '#ffffff'] });
    expect(node.s.exit_code).toBe(0);
    expect(node.s.stdout).toContain('21');
    const shebang = await run('skill_repo-hygiene_run_check-readme', {
      stdin: '# Title\n## Install\nx\n## Usage\ny\n',
    });
    expect(shebang.s.exit_code).toBe(0);
  });
});

describe('read tools', () => {
  it('reads a reference as text', async () => {
    const result = await c.client.callTool({ name: 'skill_gateway-probe_read_notes_md', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(textOf(result).length).toBeGreaterThan(0);
  });

  it('cuts a large text file at the cap and says so', async () => {
    const result = await c.client.callTool({ name: 'skill_gateway-probe_read_big_txt', arguments: {} });
    const text = textOf(result);
    expect(text).toContain('[truncated: showed');
    expect(Buffer.byteLength(text)).toBeLessThan(256 * 1024 + 200);
  });

  it('returns a PNG as image content and other binaries as an embedded blob', async () => {
    const png = await c.client.callTool({ name: 'skill_brand-assets_read_logo_png', arguments: {} });
    const image = (png.content as Array<{ type: string; data?: string; mimeType?: string }>)[0];
    expect(image?.type).toBe('image');
    expect(image?.mimeType).toBe('image/png');
    expect(
      Buffer.from(image?.data ?? '', 'base64')
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');

    const blob = await c.client.callTool({ name: 'skill_gateway-probe_read_blob_bin', arguments: {} });
    const resource = (
      blob.content as Array<{ type: string; resource?: { blob?: string; mimeType?: string } }>
    )[0];
    expect(resource?.type).toBe('resource');
    expect(resource?.resource?.mimeType).toBe('application/octet-stream');
    expect(Buffer.from(resource?.resource?.blob ?? '', 'base64').length).toBe(2048);
  });
});
