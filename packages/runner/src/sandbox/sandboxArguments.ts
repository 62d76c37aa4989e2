import type { SystemLayout } from './systemLayout.js';

// uid and gid of the script inside: "nobody", so no tool inside believes it is root.
const SANDBOX_ID = '65534';

/** What one sandboxed run needs. */
export interface SandboxSpec {
  readonly layout: SystemLayout;
  /** The skill folder: mounted read-only at its own path, and the cwd. */
  readonly skillDir: string;
  readonly network: boolean;
  /** Size of the private /tmp and /dev/shm; 0 leaves the tmpfs default. */
  readonly tmpBytes: number;
  /** Report the sandbox's pid on fd 3 and wait for a byte on fd 4 before the script starts. */
  readonly handshake?: boolean;
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
    ...(spec.handshake ? ['--info-fd', '3', '--block-fd', '4'] : []),
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
    '--ro-bind',
    spec.skillDir,
    spec.skillDir,
    // The root itself is bwrap's tmpfs: read-only, so /tmp and /dev/shm are the only writable places.
    '--remount-ro',
    '/',
    '--chdir',
    spec.skillDir,
    '--',
  ];
}
