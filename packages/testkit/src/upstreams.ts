import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/upstreams/${name}`, import.meta.url));

/** The test upstream (stdio by default, `--http` for streamable HTTP): echo, sleep, progress, pagination. */
export const TEST_UPSTREAM = fixture('testUpstream.mjs');
/** An upstream whose answers attack the gateway: echoed credentials, floods, ReDoS schemas, clashing names. */
export const HOSTILE_UPSTREAM = fixture('hostileUpstream.mjs');
/** An upstream whose process attacks the gateway: spying, never answering, crash loops, list churn. */
export const HOSTILE_PROCESS_UPSTREAM = fixture('hostileProcessUpstream.mjs');
/** An upstream that writes terminal control sequences to its stderr and into its tool names. */
export const TERMINAL_INJECTION_UPSTREAM = fixture('terminalInjectionUpstream.mjs');

/** A running HTTP upstream of the fixtures, and the lines of its stderr so far. */
export interface HttpTestUpstream {
  readonly url: string;
  readonly port: number;
  readonly process: ChildProcess;
  readonly stderr: readonly string[];
  /** SIGKILLs it and waits for its exit. */
  stop(): Promise<void>;
}

/** How startHttpFixture runs a fixture. */
interface HttpFixtureOptions {
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Pass its stderr on to the test's (the hostile ones write control sequences there: off by default). */
  readonly echoStderr?: boolean;
}

/** Starts `server` (a fixture above) over streamable HTTP and waits until it listens. */
export async function startHttpFixture(
  server: string,
  options: HttpFixtureOptions = {},
): Promise<HttpTestUpstream> {
  const { args = [], env = process.env } = options;
  const stderr: string[] = [];
  const child = spawn(process.execPath, [server, '--http', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    stderr.push(...text.split('\n').filter(Boolean));
    if (options.echoStderr === true) process.stderr.write(text);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\S+)/.exec(out);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`${server} exited with ${code} before listening`)));
  });
  return {
    url,
    port: Number(new URL(url).port),
    process: child,
    stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Starts the test upstream over streamable HTTP (`--era modern` unless args say otherwise). */
export const startHttpUpstream = (args: readonly string[] = []): Promise<HttpTestUpstream> =>
  startHttpFixture(TEST_UPSTREAM, { args, echoStderr: true });

/** Starts the hostile upstream over streamable HTTP (with `env` as its environment). */
export const startHostileUpstream = (
  args: readonly string[] = [],
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<HttpTestUpstream> => startHttpFixture(HOSTILE_UPSTREAM, { args, env });

/** Whether a process is still alive (and not a zombie). */
export function isProcessAlive(pid: number): boolean {
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
