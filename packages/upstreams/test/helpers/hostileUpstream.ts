import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { HttpTestUpstream } from './testUpstream.js';

/** Path of the hostile upstream (test/fixtures/hostileUpstream.mjs), for stdio commands. */
export const HOSTILE_UPSTREAM = fileURLToPath(new URL('../fixtures/hostileUpstream.mjs', import.meta.url));

/** A running hostile HTTP upstream and the lines of its stderr so far. */
export interface HostileUpstreamProcess extends HttpTestUpstream {
  readonly stderr: readonly string[];
}

/** Starts the hostile upstream over streamable HTTP (with `env` as its environment). */
export async function startHostileUpstream(
  args: readonly string[] = [],
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<HostileUpstreamProcess> {
  const stderr: string[] = [];
  const child = spawn(process.execPath, [HOSTILE_UPSTREAM, '--http', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(...chunk.toString().split('\n').filter(Boolean)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\S+)/.exec(out);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`hostile upstream exited with ${code} before listening`)));
  });
  return {
    stderr,
    url,
    port: Number(new URL(url).port),
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
