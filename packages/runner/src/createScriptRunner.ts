import { basename, extname } from 'node:path';
import { RunnerError } from './runnerError.js';
import { createSlotPool } from './slotPool.js';
import { spawnScript } from './spawnScript.js';
import type { RunnerOptions, RunningScript, RunRequest, ScriptRunner } from './types.js';

// setTimeout fires at once for longer delays, which would kill every script on spawn.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Creates the script runner: no shell, scrubbed environment, process-group kills, bounded output and concurrency. */
export function createScriptRunner(options: RunnerOptions): ScriptRunner {
  const interpreters = new Map(
    Object.entries(options.interpreters).map(([ext, argv]) => [ext.toLowerCase(), argv] as const),
  );
  const pool = createSlotPool(options);
  const running = new Set<RunningScript>();
  let closed = false;

  function command(req: RunRequest): { file: string; args: string[] } {
    const args = req.args ?? [];
    const [interpreter, ...prefix] = interpreters.get(extname(req.scriptPath).toLowerCase()) ?? [];
    if (interpreter !== undefined) return { file: interpreter, args: [...prefix, req.scriptPath, ...args] };
    // The kernel honours the file's shebang; the caller never picks what runs.
    if (req.executable) return { file: req.scriptPath, args: [...args] };
    throw new RunnerError(
      'RUNNER_NO_INTERPRETER',
      `no interpreter is configured for "${basename(req.scriptPath)}" and the file is not executable`,
    );
  }

  function environment(req: RunRequest): Record<string, string> {
    const source = options.sourceEnv ?? process.env;
    const deny = new Set(options.envDeny ?? []);
    const env: Record<string, string> = {};
    for (const name of options.envPassthrough) {
      const value = source[name];
      if (value !== undefined && !deny.has(name)) env[name] = value;
    }
    env.SKILL_NAME = req.skillName;
    env.SKILL_DIR = req.skillDir;
    return env;
  }

  async function start(req: RunRequest): Promise<RunningScript> {
    if (closed) throw new RunnerError('RUNNER_CLOSED', 'the script runner is shutting down');
    if (req.stdin !== undefined && Buffer.byteLength(req.stdin) > options.maxStdinBytes) {
      throw new RunnerError(
        'RUNNER_INPUT_TOO_LARGE',
        `stdin is over the limit of ${options.maxStdinBytes} bytes`,
      );
    }
    const { file, args } = command(req);
    const release = await pool.acquire(req.principal, req.signal);
    let script: RunningScript;
    try {
      if (closed) throw new RunnerError('RUNNER_CLOSED', 'the script runner is shutting down');
      if (req.signal?.aborted)
        throw new RunnerError('RUNNER_ABORTED', 'the run was cancelled before the script started');
      const seconds = Math.min(
        req.timeoutSeconds ?? options.defaultTimeoutSeconds,
        options.maxTimeoutSeconds,
      );
      script = await spawnScript({
        file,
        args,
        cwd: req.skillDir,
        env: environment(req),
        stdin: req.stdin,
        timeoutMs: Math.min(Math.max(0, seconds * 1000), MAX_TIMER_MS),
        killGraceMs: options.killGraceMs,
        maxOutputBytes: options.maxOutputBytes,
        tailLines: req.tailLines ?? options.defaultTailLines,
        signal: req.signal,
      });
    } catch (error) {
      release();
      throw error;
    }
    running.add(script);
    // The slot is held until the whole process group is gone, whoever awaits the result.
    const free = (): void => {
      running.delete(script);
      release();
    };
    void script.done.then(free, free);
    return script;
  }

  return {
    start,
    async run(req) {
      const script = await start(req);
      return script.done;
    },
    get active() {
      return pool.active;
    },
    get queued() {
      return pool.queued;
    },
    async close() {
      closed = true;
      pool.close();
      const scripts = [...running];
      for (const script of scripts) script.cancel();
      await Promise.allSettled(scripts.map((script) => script.done));
    },
  };
}
