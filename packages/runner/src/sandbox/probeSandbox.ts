import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { findExecutable } from '../findExecutable.js';
import { RunnerError } from '../runnerError.js';
import type { SandboxMode, SandboxStatus } from '../types.js';
import { sandboxArguments } from './sandboxArguments.js';
import { systemLayout } from './systemLayout.js';

/** Options of probeSandbox. */
export interface ProbeOptions {
  readonly mode: SandboxMode;
  /** Probe the network variant (scripts.network: true). */
  readonly network?: boolean;
  /** PATH-style list of where to look for bwrap; default the gateway's PATH. */
  readonly searchPath?: string;
  readonly timeoutMs?: number;
}

/**
 * Finds out whether bubblewrap works here by running a real sandbox with the options of a run.
 * `auto` falls back to `off` with the reason; `bwrap` throws SANDBOX_UNAVAILABLE instead.
 */
export async function probeSandbox(options: ProbeOptions): Promise<SandboxStatus> {
  const requested = options.mode;
  if (requested === 'off') return { requested, mode: 'off' };
  const unavailable = (reason: string): SandboxStatus => {
    if (requested === 'bwrap') {
      throw new RunnerError(
        'SANDBOX_UNAVAILABLE',
        `scripts.sandbox is "bwrap" but bubblewrap does not work on this host: ${reason}`,
      );
    }
    return { requested, mode: 'off', reason };
  };
  const bwrap = findExecutable('bwrap', options.searchPath ?? process.env.PATH ?? '/usr/bin:/bin');
  if (bwrap === undefined) return unavailable('bubblewrap (bwrap) is not installed');
  const dir = await mkdtemp(join(tmpdir(), 'skillgate-probe-'));
  try {
    const network = options.network ?? false;
    const args = sandboxArguments({
      layout: systemLayout(network),
      readOnly: [dir],
      cwd: dir,
      network,
      tmpBytes: 1 << 20,
    });
    const probe = await execa(bwrap, [...args, '/bin/sh', '-c', 'echo sandboxed'], {
      reject: false,
      stdin: 'ignore',
      timeout: options.timeoutMs ?? 10_000,
      env: { PATH: '/usr/bin:/bin' },
      extendEnv: false,
    });
    if (probe.exitCode === 0 && probe.stdout === 'sandboxed')
      return { requested, mode: 'bwrap', bwrapPath: bwrap };
    const said = probe.stderr.split('\n').find((line) => line.trim() !== '');
    return unavailable(
      said ?? (probe.timedOut ? 'the probe timed out' : `the probe exited with ${probe.exitCode}`),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
