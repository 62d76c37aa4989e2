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

/**
 * Starts `skillgate serve --config <config>` as a real process (from source, like `pnpm skillgate`) and
 * resolves once it logs where it listens; rejects with its output if it exits first.
 */
export async function serveProcess(
  config: string,
  env: NodeJS.ProcessEnv = process.env,
  /** More stdio entries for fds 3, 4, ...: what a supervisor hands the gateway without close-on-exec. */
  extraStdio: ReadonlyArray<number | 'pipe'> = [],
): Promise<ServedProcess> {
  const proc = spawn(process.execPath, [...cliArgs(), 'serve', '--config', config], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe', ...extraStdio],
  });
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
