import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { serveProcess } from '../helpers/serveProcess.js';
import { connectClient, EXAMPLES_ROOT, PROBE_ROOT } from '../helpers/testGateway.js';

/** Waits until the gateway at `url` reports a script running (so SIGTERM finds one in flight). */
async function scriptRunning(url: URL): Promise<void> {
  await waitFor(
    async () =>
      /^skillgate_scripts_running [1-9]/m.test(await (await fetch(new URL('/metrics', url))).text()),
    { what: 'the script to be running' },
  );
}

let child: ChildProcess | undefined;
let dir: string | undefined;
afterEach(async () => {
  child?.kill('SIGKILL');
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Starts `skillgate serve` as a real process and resolves with its MCP URL once it listens. */
async function serve(yaml: string): Promise<{ url: URL; exited: Promise<number | null> }> {
  dir = await mkdtemp(join(tmpdir(), 'skillgate-shutdown-'));
  const config = join(dir, 'skillgate.yaml');
  await writeFile(config, yaml);
  const { proc, url } = await serveProcess(config);
  child = proc;
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { url, exited };
}

const yaml = (grace: number) => `server: { host: 127.0.0.1, port: 0, shutdown_grace_seconds: ${grace} }
skills: { roots: [${EXAMPLES_ROOT}, ${PROBE_ROOT}] }
scripts: { kill_grace_ms: 200 }
logging: { level: info }
`;

describe('graceful shutdown (SIGTERM)', () => {
  it('lets an in-flight script finish within the grace period, refuses new work, and exits 0', async () => {
    const { url, exited } = await serve(yaml(10));
    const c = await connectClient(url);
    await c.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
    const call = c.client.callTool({
      name: 'skill_gateway-probe_run_slow_py',
      arguments: { args: ['--seconds', '1'] },
    });
    await scriptRunning(url);
    child?.kill('SIGTERM');
    // Draining shows in /readyz first; from then on new MCP work is refused.
    await waitFor(async () => (await fetch(new URL('/readyz', url))).status === 503, {
      what: 'the gateway to start draining',
    });
    const refused = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(503);
    const result = await call;
    expect((result.structuredContent as { exit_code: number; stdout: string }).stdout).toContain('finished');
    expect(await exited).toBe(0);
  });

  it('kills a script that outlives the grace period and still exits promptly', async () => {
    const { url, exited } = await serve(yaml(1));
    const c = await connectClient(url);
    await c.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
    const call = c.client.callTool({ name: 'skill_gateway-probe_run_hang_sh', arguments: { timeout: 60 } });
    await scriptRunning(url);
    const started = Date.now();
    child?.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    const result = await call;
    expect(result.isError).toBe(true);
    expect((result.structuredContent as { signal: string | null }).signal).not.toBeNull();
  });
});
