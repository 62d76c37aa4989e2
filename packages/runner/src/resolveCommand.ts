import { constants } from 'node:fs';
import { access, open } from 'node:fs/promises';
import { basename, extname, isAbsolute, relative, resolve } from 'node:path';
import { findExecutable, isExecutableFile } from './findExecutable.js';
import { RunnerError } from './runnerError.js';
import { SANDBOX_PATH, type SystemLayout } from './sandbox/systemLayout.js';
import type { RunRequest } from './types.js';

/** Options of createCommandResolver. */
export interface CommandResolverOptions {
  /** Interpreter argv prefix by file extension (with the dot). */
  readonly interpreters: Readonly<Record<string, readonly string[]>>;
  /** The sandbox's system directories, when runs are sandboxed: interpreters must come from there. */
  readonly sandbox?: SystemLayout;
}

/** Turns a run request into the argv that runs it, with the interpreter resolved to an absolute path. */
export interface CommandResolver {
  /** RUNNER_NO_INTERPRETER or RUNNER_SPAWN_FAILED when there is nothing that could run the script. */
  command(req: RunRequest, envPath: string | undefined): Promise<string[]>;
}

/**
 * Creates the resolver. Without the sandbox an interpreter name is looked up in the script's PATH, as the
 * kernel would; in the sandbox it is looked up in the sandbox's system directories, because a gateway PATH
 * entry (a pyenv shim under the home directory, say) does not exist in there.
 */
export function createCommandResolver(options: CommandResolverOptions): CommandResolver {
  const interpreters = new Map(
    Object.entries(options.interpreters).map(([ext, argv]) => [ext.toLowerCase(), argv] as const),
  );
  const { sandbox } = options;
  const where = sandbox === undefined ? '' : ' in the system directories the sandbox shows';
  // Only hits are cached, so an interpreter installed after start-up is found on the next run.
  const found = new Map<string, string>();

  const visible = (path: string): boolean =>
    sandbox === undefined || sandbox.visible.some((dir) => path === dir || path.startsWith(`${dir}/`));

  function locate(name: string, envPath: string | undefined, skillDir: string): string | undefined {
    if (name.includes('/')) {
      const path = isAbsolute(name) ? name : resolve(skillDir, name);
      return visible(path) && isExecutableFile(path) ? path : undefined;
    }
    const search = sandbox === undefined ? (envPath ?? '/usr/bin:/bin') : SANDBOX_PATH;
    const key = `${search}\0${name}`;
    const hit = found.get(key) ?? findExecutable(name, search);
    if (hit !== undefined) found.set(key, hit);
    return hit;
  }

  async function checkExecutable(req: RunRequest): Promise<void> {
    const name = basename(req.scriptPath);
    try {
      await access(req.scriptPath, constants.X_OK);
    } catch (error) {
      throw spawnFailed(name, (error as NodeJS.ErrnoException).code ?? 'EACCES', error);
    }
    if (sandbox === undefined) return;
    // The kernel reads the #! line inside the sandbox, where only the system directories exist.
    const interpreter = await shebangInterpreter(req.scriptPath);
    if (interpreter !== undefined && !(visible(interpreter) && isExecutableFile(interpreter))) {
      throw spawnFailed(name, `its #! interpreter ${interpreter} is not${where}`);
    }
  }

  return {
    async command(req, envPath) {
      const args = req.args ?? [];
      const inSkill = relative(resolve(req.skillDir), resolve(req.scriptPath));
      if (sandbox !== undefined && (inSkill.startsWith('..') || isAbsolute(inSkill))) {
        throw spawnFailed(basename(req.scriptPath), 'the script is outside its skill folder');
      }
      const [interpreter, ...prefix] = interpreters.get(extname(req.scriptPath).toLowerCase()) ?? [];
      if (interpreter !== undefined) {
        const file = locate(interpreter, envPath, req.skillDir);
        if (file === undefined) {
          const cause = Object.assign(new Error(`${interpreter}: not found${where}`), { code: 'ENOENT' });
          throw spawnFailed(basename(interpreter), `ENOENT${where ? `:${where.slice(1)}` : ''}`, cause);
        }
        return [file, ...prefix, req.scriptPath, ...args];
      }
      if (req.executable) {
        await checkExecutable(req);
        return [req.scriptPath, ...args];
      }
      throw new RunnerError(
        'RUNNER_NO_INTERPRETER',
        `no interpreter is configured for "${basename(req.scriptPath)}" and the file is not executable`,
      );
    },
  };
}

// Names the program, not its absolute path: the message reaches the client.
function spawnFailed(name: string, why: string, cause?: unknown): RunnerError {
  return new RunnerError('RUNNER_SPAWN_FAILED', `could not start "${name}" (${why})`, { cause });
}

async function shebangInterpreter(file: string): Promise<string | undefined> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(256), 0, 256, 0);
    const head = buffer.subarray(0, bytesRead).toString('latin1');
    if (!head.startsWith('#!')) return undefined;
    return /^#!\s*(\S+)/.exec(head)?.[1];
  } finally {
    await handle.close();
  }
}
