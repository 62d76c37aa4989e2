import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive, waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveProcess } from '../helpers/serveProcess.js';
import { connectClient, textOf } from '../helpers/testGateway.js';

// After a sandboxed run of a skill, the gateway keeps bwrap started ahead for that skill's folder (a warm
// spare with its sandbox made, packages/runner/src/spareRuns.ts): bwrap outside, bwrap's pid 1 and a waiting
// shell inside. Like a run, none of it may outlive the gateway: SIGKILL included, and even when the watchdog
// was killed first.

let work: string;
let root: string;
const processes: ChildProcess[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillgate-skill-spare-test-'));
  root = join(work, 'skills');
  await mkdir(join(root, 'hello', 'scripts'), { recursive: true });
  await writeFile(join(root, 'hello', 'SKILL.md'), '---\nname: hello\ndescription: Says hi.\n---\n# hello\n');
  await writeFile(join(root, 'hello', 'scripts', 'hi.sh'), 'echo hi\n');
});
afterAll(async () => {
  for (const proc of processes.splice(0)) proc.kill('SIGKILL');
  await rm(work, { recursive: true, force: true });
});

function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

/** Every live process below `ancestor` (any depth) whose argv holds `word`. */
function descendantsNamed(ancestor: number, word: string): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || !isProcessAlive(pid)) return [];
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(word)) return [];
    } catch {
      return [];
    }
    for (let up = parentOf(pid); up > 1; up = parentOf(up)) if (up === ancestor) return [pid];
    return [];
  });
}

/** A gateway after one run of hello's script, and the processes of its spare made for hello's folder. */
async function serveWithSkillSpare(): Promise<{ proc: ChildProcess; spare: number[] }> {
  const config = join(work, `gateway-${processes.length}.yaml`);
  await writeFile(
    config,
    `server: { host: 127.0.0.1, port: 0 }\nskills: { roots: [${root}], disclosure: eager }\nscripts: { sandbox: bwrap }\n`,
  );
  const served = await serveProcess(config);
  processes.push(served.proc);
  const pid = served.proc.pid ?? 0;
  const c = await connectClient(served.url);
  const run = await c.client.callTool({ name: 'skill_hello_run_hi_sh', arguments: {} });
  expect(run.isError, textOf(run)).toBeFalsy();
  await c.close();
  // bwrap started for hello's folder: its argv names the folder; the shell inside waits.
  const folder = join(root, 'hello');
  const sandboxed = (): number[] =>
    descendantsNamed(pid, folder).filter((spare) => descendantsNamed(spare, 'skillgate-run').length > 0);
  await waitFor(() => sandboxed().length > 0, { timeoutMs: 10_000, what: "the spare with hello's sandbox" });
  const spare = sandboxed().flatMap((outer) => [outer, ...descendantsNamed(outer, 'skillgate-run')]);
  return { proc: served.proc, spare };
}

describe("an idle spare with its skill's sandbox made", () => {
  it('dies with a SIGKILLed gateway, bwrap and the shell waiting inside it', async () => {
    const { proc, spare } = await serveWithSkillSpare();
    expect(spare.length).toBeGreaterThanOrEqual(2);
    proc.kill('SIGKILL');
    await waitFor(() => spare.every((pid) => !isProcessAlive(pid)), {
      timeoutMs: 5000,
      what: 'the spare to be gone',
    });
  });

  it('dies with a SIGKILLed gateway whose watchdog was killed first', async () => {
    const { proc, spare } = await serveWithSkillSpare();
    const [watchdog] = descendantsNamed(proc.pid ?? 0, 'skillgate-watchdog');
    expect(watchdog).toBeDefined();
    process.kill(watchdog ?? 0, 'SIGKILL');
    proc.kill('SIGKILL');
    // bwrap's --die-with-parent, and the wait descriptor reaching end-of-file inside.
    await waitFor(() => spare.every((pid) => !isProcessAlive(pid)), {
      timeoutMs: 5000,
      what: 'the spare to be gone',
    });
  });
});
