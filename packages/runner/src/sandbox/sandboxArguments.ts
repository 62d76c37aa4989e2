import type { SystemLayout } from './systemLayout.js';

// uid and gid of the script inside: "nobody", so no tool inside believes it is root.
const SANDBOX_ID = '65534';

/** What one sandboxed run needs. */
export interface SandboxSpec {
  readonly layout: SystemLayout;
  /** Mounted read-only, each at its own path (a script's skill folder; a stdio upstream's program files). */
  readonly readOnly: readonly string[];
  /** Mounted writable, each at its own path (a stdio upstream's data folders). */
  readonly writable?: readonly string[];
  /** The working directory inside: one of the mounts, or created empty at that path. */
  readonly cwd: string;
  readonly network: boolean;
  /** Size of the private /tmp and /dev/shm; 0 leaves the tmpfs default. */
  readonly tmpBytes: number;
}

/** The bwrap options (up to and including `--`) of one run; the command follows them. */
export function sandboxArguments(spec: SandboxSpec): string[] {
  const size = spec.tmpBytes > 0 ? ['--size', String(spec.tmpBytes)] : [];
  return [
    '--unshare-user',
    '--unshare-ipc',
    '--unshare-pid',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(spec.network ? [] : ['--unshare-net']),
    // Nested user namespaces are kernel attack surface a script has no use for.
    '--disable-userns',
    '--uid',
    SANDBOX_ID,
    '--gid',
    SANDBOX_ID,
    // A gateway running as root would otherwise hand its capabilities to the script inside.
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--hostname',
    'skillgate',
    ...spec.layout.mounts,
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--perms',
    '1777',
    ...size,
    '--tmpfs',
    '/dev/shm',
    '--remount-ro',
    '/dev',
    '--perms',
    '1777',
    ...size,
    '--tmpfs',
    '/tmp',
    // The working directory exists even when nothing is mounted there (a stdio upstream's relative paths).
    ...(covered(spec) ? [] : ['--dir', spec.cwd]),
    ...spec.readOnly.flatMap((path) => ['--ro-bind', path, path]),
    ...(spec.writable ?? []).flatMap((path) => ['--bind', path, path]),
    // The root itself is bwrap's tmpfs: read-only, so /tmp and /dev/shm are the only writable places.
    '--remount-ro',
    '/',
    '--chdir',
    spec.cwd,
    '--',
  ];
}

// Whether the working directory lies in a mount, a system directory included (then the mount provides it,
// and a read-only one could not take a new directory anyway).
function covered(spec: SandboxSpec): boolean {
  return [...spec.layout.visible, ...spec.readOnly, ...(spec.writable ?? [])].some(
    (path) => spec.cwd === path || spec.cwd.startsWith(path.endsWith('/') ? path : `${path}/`),
  );
}
