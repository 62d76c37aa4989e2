import { existsSync, lstatSync, readlinkSync } from 'node:fs';

// Beside /usr: symlinks into /usr on merged-/usr systems (Debian 12), real directories on older ones.
const ROOT_DIRS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'] as const;
// Files of /etc that interpreters use and that hold nothing secret.
const ETC_ALWAYS = ['/etc/alternatives', '/etc/ld.so.cache', '/etc/localtime'] as const;
// Name resolution and public TLS roots, only with scripts.network: true (never /etc/ssl/private).
const ETC_NETWORK = [
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/host.conf',
  '/etc/nsswitch.conf',
  '/etc/gai.conf',
  '/etc/ssl/certs',
  '/etc/ssl/openssl.cnf',
] as const;

/** PATH inside the sandbox: the system directories it exposes, never the gateway's own PATH entries. */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The read-only system part of the sandbox on this host; computed once per runner. */
export interface SystemLayout {
  /** bwrap arguments that mount /usr, the top-level system directories and the allowed /etc files. */
  readonly mounts: readonly string[];
  /** Absolute directories a script (or its interpreter) can see inside the sandbox. */
  readonly visible: readonly string[];
}

/** Reads how this host lays out its system directories (merged /usr or not) and which /etc files exist. */
export function systemLayout(network: boolean): SystemLayout {
  const mounts = ['--ro-bind', '/usr', '/usr'];
  const visible = ['/usr'];
  for (const name of ROOT_DIRS) {
    const path = `/${name}`;
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) {
      mounts.push('--symlink', readlinkSync(path), path);
      visible.push(path);
    } else if (stat.isDirectory()) {
      mounts.push('--ro-bind', path, path);
      visible.push(path);
    }
  }
  for (const path of [...ETC_ALWAYS, ...(network ? ETC_NETWORK : [])]) {
    if (existsSync(path)) mounts.push('--ro-bind', path, path);
  }
  return { mounts, visible };
}
