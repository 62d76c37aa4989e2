import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Path of the test upstream server (test/fixtures/testUpstream.mjs), for stdio commands. */
export const TEST_UPSTREAM = fileURLToPath(new URL('../fixtures/testUpstream.mjs', import.meta.url));

/** A running HTTP test upstream. */
export interface HttpTestUpstream {
  readonly url: string;
  readonly port: number;
  readonly process: ChildProcess;
  /** SIGKILLs it and waits for its exit. */
  stop(): Promise<void>;
}

/** Starts the test upstream over streamable HTTP (`--era modern` unless args say otherwise). */
export async function startHttpUpstream(args: readonly string[] = []): Promise<HttpTestUpstream> {
  const child = spawn(process.execPath, [TEST_UPSTREAM, '--http', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\S+)/.exec(out);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`test upstream exited with ${code} before listening`)));
  });
  return {
    url,
    port: Number(new URL(url).port),
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Whether a process is still alive (and not a zombie). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
