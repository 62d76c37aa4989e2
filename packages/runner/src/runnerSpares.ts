import { statSync } from 'node:fs';
import type { ProcessGuard } from './guard/processGuard.js';
import { confinement, spareWaiter, ulimitOptions } from './launchCommand.js';
import type { LaunchSetup } from './launchSetup.js';
import { createSpareRuns, type SpareRuns } from './spareRuns.js';
import { SPARE_FD } from './spawnScript.js';
import type { RunnerOptions } from './types.js';

// Warm spares: at most this many at once (and never more than runs may run at once), each ended after a minute
// unused. A sandboxed one holds bwrap's two processes and a bash, about 6 MB.
const MAX_SPARES = 8;
const SPARE_IDLE_MS = 60_000;
// A spare of one skill gives way to another skill's after a second unused, not sooner: with more skills in turn
// than spares, making each one only to end it before its run would double the sandbox work of every run.
const SPARE_EVICT_AFTER_MS = 1000;

/**
 * The runner's warm spares: one per skill folder with its sandbox made (or one waiting before its sandbox),
 * or undefined where bash or env is missing (spares need bash to read their command, env to add the run's
 * own variables).
 */
export function runnerSpares(
  setup: LaunchSetup,
  guard: Promise<ProcessGuard>,
  options: Pick<RunnerOptions, 'maxConcurrent' | 'spares'>,
): SpareRuns | undefined {
  const { shell, prlimit, bwrap, limits } = setup;
  if (shell === undefined || setup.envPath === undefined) return undefined;
  return createSpareRuns({
    guard,
    limits: setup.cgroupLimits,
    shell,
    env: setup.shared,
    max: Math.min(options.maxConcurrent, options.spares?.max ?? MAX_SPARES),
    idleMs: options.spares?.idleMs ?? SPARE_IDLE_MS,
    evictAfterMs: options.spares?.evictAfterMs ?? SPARE_EVICT_AFTER_MS,
    chain: (key) => {
      // The rlimits, set by the spare's waiting shell; prlimit stays in the run's chain when bash cannot
      // say them exactly, and both go without prlimit, as for a cold run.
      const ulimits = prlimit === undefined ? [] : ulimitOptions(limits, bwrap !== undefined);
      if (key === '')
        return bwrap === undefined && ulimits !== undefined
          ? { argv: ulimits, receive: true, prestarted: true }
          : { argv: [], receive: true, prestarted: false };
      // A skill folder's spare: its sandbox made, the waiting shell inside it.
      const confined = confinement({
        command: [],
        watchdog: false,
        procsFiles: [],
        prlimit: ulimits === undefined ? prlimit : undefined,
        limits,
        sandbox: setup.sandboxOptions(key),
      });
      return {
        argv: [...confined, ...spareWaiter(shell, SPARE_FD, ulimits ?? [])],
        receive: false,
        prestarted: true,
      };
    },
    // The folder the spare's sandbox bound: a folder swapped in at the same path later is another one.
    identity: (key) => {
      if (key === '') return '';
      try {
        const stat = statSync(key, { bigint: true });
        return `${stat.dev}:${stat.ino}`;
      } catch {
        return undefined;
      }
    },
  });
}
