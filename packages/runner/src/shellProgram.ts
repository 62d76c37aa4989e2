import { basename } from 'node:path';

/**
 * The arguments that make `shell` run `program` (fixed text) with -c, with no start-up file read.
 *
 * bash started with -c whose stdin is a socket takes itself for a remote shell's (rshd, sshd) and reads
 * /etc/bash.bashrc and ~/.bashrc first, unless SHLVL says it is nested. node's `pipe` stdio is a socketpair,
 * and SHLVL is unset under Docker, systemd and turbo: so the wrapper of a run with input, of an stdio upstream,
 * and the watchdog each ran the gateway user's ~/.bashrc, outside any sandbox, before their own program; with
 * bubblewrap a run's HOME is /tmp, so the host's /tmp/.bashrc, which any local user can write. `--norc` turns
 * that off (docs/sandbox.md, "Start-up files"). A POSIX sh reads no such file (and knows no --norc); bash
 * invoked as sh neither.
 */
export function shellProgram(shell: string, program: string): string[] {
  return basename(shell) === 'bash' ? ['--norc', '-c', program] : ['-c', program];
}
