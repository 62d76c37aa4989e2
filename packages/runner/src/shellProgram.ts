import { basename } from 'node:path';

/**
 * The arguments that make `shell` run `program` (fixed text) with -c, with no start-up file read and nothing
 * of its environment turned into shell code or shell options.
 *
 * bash started with -c whose stdin is a socket takes itself for a remote shell's (rshd, sshd) and reads
 * /etc/bash.bashrc and ~/.bashrc first, unless SHLVL says it is nested. node's `pipe` stdio is a socketpair,
 * and SHLVL is unset under Docker, systemd and turbo: so the wrapper of a run with input, of an stdio upstream,
 * and the watchdog each ran the gateway user's ~/.bashrc, outside any sandbox, before their own program; with
 * bubblewrap a run's HOME is /tmp, so the host's /tmp/.bashrc, which any local user can write. `--norc` turns
 * that off (docs/sandbox.md, "Start-up files").
 *
 * The wrapper runs with the run's environment (it execs the script with it), so whatever
 * `scripts.env_passthrough` names reaches bash itself, outside the sandbox: BASH_ENV is a file every
 * non-interactive bash sources first, --norc or not; SHELLOPTS=noglob or GLOBIGNORE='*' empty the glob the
 * wrapper closes inherited descriptors with; exported functions (BASH_FUNC_name%%) replace builtins such as
 * echo, read and cd. `-p` (privileged mode; with the real and effective ids equal it changes nothing else) makes
 * bash ignore all of those, while still passing them on to what it execs. A POSIX sh reads no such file (and
 * knows neither option); bash invoked as sh neither.
 */
export function shellProgram(shell: string, program: string): string[] {
  return basename(shell) === 'bash' ? ['--norc', '-pc', program] : ['-c', program];
}
