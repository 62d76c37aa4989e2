import { type ChildProcess, spawn } from 'node:child_process';
import { cliArgs } from './cliCommand.js';
import { REPO_ROOT } from './testGateway.js';

/** A `skillgate serve` process and the MCP URL it listens on. */
export interface ServedProcess {
  readonly proc: ChildProcess;
  readonly url: URL;
  /** Everything it wrote to stdout and stderr so far (the last 1 MB). */
  output(): string;
}

/** How serveProcess starts the gateway. */
export interface ServeProcessOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** More stdio entries for fds 3, 4, ...: what a supervisor hands the gateway without close-on-exec. */
  readonly extraStdio?: ReadonlyArray<number | 'pipe' | 'ignore'>;
  /**
   * cgroup folders (v1, one per hierarchy) the process joins before the gateway starts: its run cgroups are
   * then made, and dead gateways' runs swept, under these folders only (test/helpers/privateCgroups.ts).
   */
  readonly cgroups?: readonly string[];
  /** Called with the process as soon as it is spawned, so a caller can kill it even if it never listens. */
  readonly spawned?: (proc: ChildProcess) => void;
}

// Joins each cgroup folder given before `--`, then becomes the command after it (same pid).
const JOIN_CGROUPS =
  'while [ "$1" != -- ]; do echo $$ >"$1/cgroup.procs" || exit 1; shift; done; shift; exec "$@"';

/**
 * Starts `skillgate serve --config <config>` as a real process (the built CLI when current, else from source,
 * like `pnpm skillgate`) and resolves once it logs where it listens; rejects with its output if it exits first.
 */
export async function serveProcess(
  config: string,
  options: ServeProcessOptions = {},
): Promise<ServedProcess> {
  const command = [process.execPath, ...cliArgs(), 'serve', '--config', config];
  const cgroups = options.cgroups ?? [];
  const [file, ...args] =
    cgroups.length === 0 ? command : ['/bin/sh', '-c', JOIN_CGROUPS, 'sh', ...cgroups, '--', ...command];
  const proc = spawn(file ?? process.execPath, args, {
    cwd: REPO_ROOT,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe', ...(options.extraStdio ?? [])],
  });
  options.spawned?.(proc);
  let all = '';
  const keep = (chunk: Buffer) => {
    all = (all + chunk.toString()).slice(-1_000_000);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const url = await new Promise<URL>((resolve, reject) => {
    let out = '';
    const take = (chunk: Buffer) => {
      out = (out + chunk.toString()).slice(-8000);
      const match = /listening on (http:\/\/[^\s"]+)/.exec(out);
      if (match?.[1] !== undefined) resolve(new URL(match[1]));
    };
    proc.stdout?.on('data', take);
    proc.stderr?.on('data', take);
    proc.once('exit', () => reject(new Error(`skillgate serve exited early: ${out}`)));
  });
  return { proc, url, output: () => all };
}
