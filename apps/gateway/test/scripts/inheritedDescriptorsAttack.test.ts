import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync, readdirSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOSTILE_PROCESS_UPSTREAM, waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { childrenNamed } from '../helpers/processTree.js';
import { serveProcess } from '../helpers/serveProcess.js';
import { connectClient, textOf } from '../helpers/testGateway.js';

// Attacks on the closing of descriptors the gateway inherited without close-on-exec (a supervisor's log file
// and pipe, docs/sandbox.md "Descriptors"): issue 17's "file descriptors leak into the sandbox" (a script held
// them, writable), and then:
// 1. An stdio upstream's wrapper ran under /bin/sh (dash here), which can only name descriptors 3-9: one
//    numbered 10 or more stayed open, and writable, in the upstream, sandboxed too (and /proc/self/fd/<n>
//    reopens the file whatever the sandbox shows).
// 2. `SHELLOPTS=noglob` passed on to scripts (scripts.env_passthrough) emptied the glob over /proc/self/fd the
//    wrapper closes descriptors with, so every inherited one stayed open in every script.

// The supervisor's log file as fd 18 (and a pipe as 19). node marks every descriptor from 0 up to the first closed one past 15
// close-on-exec at start-up (libuv's uv_disable_stdio_inheritance): 3-17 are left closed, so 18 is inherited
// as a supervisor's descriptor after a gap would be.
const LOG_FD = 18;
const BEFORE_LOG: ReadonlyArray<'ignore'> = Array.from({ length: LOG_FD - 3 }, () => 'ignore');

// The listing's own descriptor is gone by the time it is resolved and is left out.
const LIST_FDS_PY = `import os
fds = []
for fd in sorted(int(name) for name in os.listdir('/proc/self/fd')):
    try:
        os.readlink('/proc/self/fd/%d' % fd)
        fds.append(str(fd))
    except OSError:
        pass
print(' '.join(fds))
`;

let child: ChildProcess | undefined;
let dir: string | undefined;
const opened: number[] = [];
afterEach(async () => {
  const proc = child;
  child = undefined;
  if (proc !== undefined && proc.exitCode === null && proc.signalCode === null) {
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    await exited;
  }
  for (const fd of opened.splice(0)) closeSync(fd);
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe.each(['off', 'bwrap'] as const)('descriptors the gateway inherited (sandbox %s)', (sandbox) => {
  it('an stdio upstream holds no inherited descriptor numbered 10 or more, and a passed-on SHELLOPTS=noglob does not keep them open in a script', async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillgate-fds-attack-'));
    const root = join(dir, 'skills');
    await mkdir(join(root, 'fds', 'scripts'), { recursive: true });
    await writeFile(
      join(root, 'fds', 'SKILL.md'),
      '---\nname: fds\ndescription: Lists its fds.\n---\n# fds\n',
    );
    await writeFile(join(root, 'fds', 'scripts', 'list_fds.py'), LIST_FDS_PY);
    const config = join(dir, 'skillgate.yaml');
    await writeFile(
      config,
      JSON.stringify({
        server: { host: '127.0.0.1', port: 0 },
        skills: { roots: [root], disclosure: 'eager' },
        scripts: {
          sandbox,
          interpreters: { '.py': ['/usr/bin/python3'] },
          env_passthrough: ['PATH', 'LANG', 'SHELLOPTS'],
        },
        upstreams: [{ id: 'spy', command: [process.execPath, HOSTILE_PROCESS_UPSTREAM, 'spy'] }],
        logging: { level: 'info' },
      }),
    );
    const logPath = join(dir, 'supervisor.log');
    const log = openSync(logPath, 'a');
    opened.push(log);
    const served = await serveProcess(config, {
      env: { ...process.env, SHELLOPTS: 'noglob' },
      extraStdio: [...BEFORE_LOG, log, 'pipe'],
      spawned: (proc) => {
        child = proc;
      },
    });
    const pid = served.proc.pid ?? 0;
    expect(readlinkSync(`/proc/${pid}/fd/${LOG_FD}`)).toBe(logPath);

    const c = await connectClient(served.url);
    try {
      await waitFor(
        async () => (await c.client.listTools()).tools.some((t) => t.name === 'skill_spy_call_list_fds'),
        { what: 'the upstream connected', timeoutMs: 30_000 },
      );
      const listed = await c.client.callTool({ name: 'skill_spy_call_list_fds', arguments: {} });
      const fds = Buffer.from(textOf(listed), 'base64').toString('utf8');
      expect(fds).toMatch(/^0 /);
      expect(fds).not.toContain('supervisor.log');
      // A cold run, then one from a warm spare.
      for (let i = 0; i < 2; i++) {
        const run = await c.client.callTool({ name: 'skill_fds_run_list_fds_py', arguments: {} });
        expect(run.isError, textOf(run)).toBeFalsy();
        expect((run.structuredContent as { stdout: string }).stdout.trim()).toBe('0 1 2');
      }
    } finally {
      await c.close();
    }
    // The gateway itself keeps what it was handed; its watchdog, which may outlive it, does not.
    expect(readlinkSync(`/proc/${pid}/fd/${LOG_FD}`)).toBe(logPath);
    const watchdogs = childrenNamed(pid, 'skillgate-watchdog');
    expect(watchdogs.length).toBeGreaterThan(0);
    for (const watchdog of watchdogs) expect(descriptorTargets(watchdog)).not.toContain(logPath);
  }, 90_000);
});

/** What each open descriptor of a process points at. */
function descriptorTargets(pid: number): string[] {
  return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/${pid}/fd/${fd}`)];
    } catch {
      return [];
    }
  });
}
