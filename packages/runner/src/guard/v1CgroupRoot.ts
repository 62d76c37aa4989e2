import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The folder for skillgate's cgroups inside this process's own cgroup of a v1 controller, from mountinfo. */
export function v1CgroupRoot(controller: 'pids' | 'memory'): string | undefined {
  try {
    const own = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .map((line) => /^\d+:([^:]*):(.*)$/.exec(line))
      .find((m) => m?.[1]?.split(',').includes(controller))?.[2];
    if (own === undefined) return undefined;
    for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
      const [mount, fs] = line.split(' - ');
      const [type, , superOptions = ''] = fs?.split(' ') ?? [];
      if (type !== 'cgroup' || !superOptions.split(',').includes(controller)) continue;
      const fields = mount?.split(' ') ?? [];
      const mountRoot = unescapeMountPath(fields[3] ?? '/');
      const mountPoint = unescapeMountPath(fields[4] ?? '');
      if (mountPoint === '') continue;
      // A container sees its own cgroup as the mount's root; the path in /proc/self/cgroup is relative to it.
      const inside = mountRoot === '/' ? own : own.startsWith(mountRoot) ? own.slice(mountRoot.length) : '/';
      return join(mountPoint, inside, 'skillgate');
    }
  } catch {
    // No /proc (not Linux): no cgroups.
  }
  return undefined;
}

function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}
