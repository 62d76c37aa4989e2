import { spawn } from 'node:child_process';
import { waitFor } from '@skillgate/testkit';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/testGateway.js';

describe('pnpm start', () => {
  // It builds every package first, so it gets minutes, not seconds.
  it('serves the bundled examples without a warning, and Ctrl-C ends it quietly with exit 0', {
    timeout: 300_000,
  }, async () => {
    // A terminal's Ctrl-C signals its whole foreground process group: pnpm, the shell and the gateway. The
    // child gets a process group of its own (detached) so the test can do the same with kill(-pid).
    const proc = spawn('pnpm', ['start'], {
      cwd: REPO_ROOT,
      detached: true,
      env: { ...process.env, SKILLGATE_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    proc.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      proc.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const group = proc.pid ?? 0;
    try {
      let base = '';
      await waitFor(
        () => {
          if (proc.exitCode !== null) throw new Error(`pnpm start exited early:\n${stdout}\n${stderr}`);
          base = /skillgate listening on (http:\/\/[\d.:]+)/.exec(stdout)?.[1] ?? '';
          return base !== '';
        },
        { timeoutMs: 280_000, intervalMs: 200, what: 'pnpm start to listen' },
      );
      expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
      process.kill(-group, 'SIGINT');
      expect(await exited).toEqual({ code: 0, signal: null });
    } finally {
      if (proc.exitCode === null && proc.signalCode === null) process.kill(-group, 'SIGKILL');
    }
    const records = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(records.map((r) => r.msg)).toContain('shutting down');
    expect(records.filter((r) => r.level >= 40)).toEqual([]);
    expect(`${stdout}${stderr}`).not.toContain('ELIFECYCLE');
    expect(stderr).toBe('');
  });
});
