import { constants } from 'node:os';
import type { RunResult } from '../types.js';

const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, number]) => [number, name]));

/**
 * bubblewrap reports a script killed by signal N as exit status 128+N (like a shell does). Reports it as the
 * signal, so a result reads the same with and without the sandbox; a script that itself exits with 129-159
 * is reported as that signal too (docs/sandbox.md).
 */
export function sandboxExitStatus(result: RunResult): RunResult {
  const code = result.exit_code;
  if (code === null || code <= 128) return result;
  const name = SIGNAL_NAMES.get(code - 128);
  return name === undefined ? result : { ...result, exit_code: null, signal: name };
}
