import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serveProcess } from './helpers/serveProcess.js';
import { connectClient, textOf } from './helpers/testGateway.js';

// Regression test named after the attack of issue 17 item 3, "file descriptors leak into the sandbox": a
// descriptor the gateway inherited without close-on-exec (a supervisor's log file, a pipe) was open, and
// writable, inside every script. The gateway runs as a real process started the way a supervisor would
// start it; the script lists its own descriptors.

// Every descriptor the script holds, with what it points at; the listing's own descriptor is gone by the
// time it is resolved and is left out.
const LIST_FDS_PY = `import os
for fd in sorted(int(name) for name in os.listdir('/proc/self/fd')):
    try:
        print(fd, os.readlink('/proc/self/fd/%d' % fd))
    except OSError:
        pass
`;

const LOG_FD = 18;
const BEFORE_LOG: ReadonlyArray<'ignore'> = Array.from({ length: LOG_FD - 3 }, () => 'ignore');

let child: ChildProcess | undefined;
let dir: string | undefined;
const opened: number[] = [];
afterEach(async () => {
  child?.kill('SIGKILL');
  child = undefined;
  for (const fd of opened.splice(0)) closeSync(fd);
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe.each(['off', 'bwrap'] as const)('descriptors inherited by the gateway (sandbox %s)', (sandbox) => {
  it('a supervisor log file and a pipe inherited without close-on-exec: a script sees only stdin, stdout and stderr', async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillgate-fds-'));
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
      `server: { host: 127.0.0.1, port: 0 }\nskills: { roots: [${root}], disclosure: eager }\nscripts: { sandbox: ${sandbox} }\nlogging: { level: info }\n`,
    );
    const logPath = join(dir, 'supervisor.log');
    const log = openSync(logPath, 'a');
    opened.push(log);
    // The log file and a pipe, inherited by the gateway without close-on-exec, as fds 18 and 19: node marks
    // every descriptor from 0 up to the first closed one past 15 close-on-exec at start-up (libuv's
    // uv_disable_stdio_inheritance), so fds 3 and 4 would never reach a script whatever the wrapper did.
    const served = await serveProcess(config, { extraStdio: [...BEFORE_LOG, log, 'pipe'] });
    child = served.proc;
    const pid = served.proc.pid ?? 0;
    expect(readlinkSync(`/proc/${pid}/fd/${LOG_FD}`)).toBe(logPath);

    const c = await connectClient(served.url);
    const run = await c.client.callTool({ name: 'skill_fds_run_list_fds_py', arguments: {} });
    expect(run.isError, textOf(run)).toBeFalsy();
    const fds = (run.structuredContent as { stdout: string }).stdout
      .trim()
      .split('\n')
      .map((line) => Number(line.split(' ')[0]));
    expect(fds).toEqual([0, 1, 2]);
    expect(textOf(run)).not.toContain('supervisor.log');
    // The gateway itself keeps what it was handed: only its scripts lose it.
    expect(readlinkSync(`/proc/${pid}/fd/${LOG_FD}`)).toBe(logPath);
    const again = await c.client.callTool({ name: 'skill_fds_run_list_fds_py', arguments: {} });
    expect(again.isError).toBeFalsy();
    await c.close();
  }, 60_000);
});
