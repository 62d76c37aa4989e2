import type { ProcessGuard } from './guard/processGuard.js';
import type { RunCgroup } from './guard/runCgroup.js';
import type { LaunchSetup } from './launchSetup.js';
import { limitExceeded } from './limitExceeded.js';
import { sandboxExitStatus } from './sandbox/sandboxExitStatus.js';
import { signalProcessGroup } from './signalProcessGroup.js';
import type { SpawnHooks } from './spawnScript.js';

/** How one run's processes are signalled, untracked and its result read, in or out of its cgroup. */
export function runHooks(
  setup: Pick<LaunchSetup, 'bwrap' | 'limits'>,
  guard: ProcessGuard,
  cgroup: RunCgroup | undefined,
): SpawnHooks {
  const { bwrap, limits } = setup;
  return {
    kill(pid, signal) {
      // bwrap dies of SIGTERM and takes the sandbox with it at once: spare it, so the script inside gets
      // the grace period; the SIGKILL after the grace goes to everything.
      const except = bwrap !== undefined && signal === 'SIGTERM' ? pid : undefined;
      if (cgroup === undefined) {
        signalProcessGroup(pid, signal, except);
      } else {
        // The cgroup holds what left the process group too (setsid, double fork).
        if (except === undefined) signalProcessGroup(pid, signal);
        cgroup.signal(signal, except);
      }
    },
    exited: (pid) => guard.untrack(pid),
    async settle(raw) {
      const result = bwrap === undefined ? raw : sandboxExitStatus(raw);
      const limit = limitExceeded(
        result,
        limits,
        cgroup?.hitPidsLimit() ?? false,
        cgroup?.hitMemoryLimit() ?? false,
      );
      return limit === undefined ? result : { ...result, limit_exceeded: limit };
    },
  };
}
