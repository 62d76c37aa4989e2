import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { drainCgroup, v1CgroupRoot } from '@skillgate/runner';

/** cgroup folders of a test's own, one per v1 hierarchy the process guard uses. */
export interface PrivateCgroups {
  /** For serveProcess's `cgroups`. */
  readonly dirs: readonly string[];
  /** Kills whatever is left in them and removes them. */
  remove(): Promise<void>;
}

/**
 * Makes a pids and a memory cgroup beside this process's own `skillgate` folders. A gateway started in them
 * makes its run cgroups, and sweeps dead gateways' runs, there only: gateways other test files start at the
 * same time cannot sweep its runs, nor it theirs (packages/runner/src/guard/processGuard.ts). Undefined
 * without writable v1 cgroups.
 */
export async function privateCgroups(label: string): Promise<PrivateCgroups | undefined> {
  const name = `skillgate-test-${label}-${randomBytes(4).toString('hex')}`;
  const dirs: string[] = [];
  try {
    for (const controller of ['pids', 'memory'] as const) {
      const root = v1CgroupRoot(controller);
      if (root === undefined) continue;
      const dir = join(dirname(root), name);
      await mkdir(dir);
      dirs.push(dir);
    }
  } catch {
    await Promise.all(dirs.map((dir) => drainCgroup(dir)));
    return undefined;
  }
  return {
    dirs,
    async remove() {
      await Promise.all(dirs.map((dir) => drainCgroup(dir)));
    },
  };
}
