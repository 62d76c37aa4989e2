import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive, waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childrenNamed } from '../helpers/processTree.js';
import { serveProcess } from '../helpers/serveProcess.js';
import { REPO_ROOT } from '../helpers/testGateway.js';

// A gateway keeps one run's wrapper started ahead (a warm spare, packages/runner/src/spareRuns.ts), idle in
// its fresh cgroups until a run takes it. Like a run, it must never outlive the gateway: SIGKILL included,
// and even when the watchdog was killed first.

const SKILLS = join(REPO_ROOT, 'apps/gateway/test/fixtures/hostile-skills');
let work: string;
const processes: ChildProcess[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillgate-spare-test-'));
});
afterAll(async () => {
  for (const proc of processes.splice(0)) proc.kill('SIGKILL');
  await rm(work, { recursive: true, force: true });
});

async function serveWithSpare(sandbox: string): Promise<{ proc: ChildProcess; spare: number }> {
  const config = join(work, `${sandbox}-${processes.length}.yaml`);
  await writeFile(
    config,
    `server: { host: 127.0.0.1, port: 0 }\nskills: { roots: [${SKILLS}] }\nscripts: { sandbox: ${sandbox} }\n`,
  );
  const { proc } = await serveProcess(config);
  processes.push(proc);
  const pid = proc.pid ?? 0;
  await waitFor(() => childrenNamed(pid, 'skillgate-run').length > 0, {
    timeoutMs: 10_000,
    what: 'the warm spare',
  });
  return { proc, spare: childrenNamed(pid, 'skillgate-run')[0] ?? 0 };
}

describe('an idle warm spare', () => {
  it.each(['bwrap', 'off'])('dies with a SIGKILLed gateway (sandbox %s)', async (sandbox) => {
    const { proc, spare } = await serveWithSpare(sandbox);
    proc.kill('SIGKILL');
    await waitFor(() => !isProcessAlive(spare), { timeoutMs: 5000, what: 'the spare to be gone' });
  });

  it('dies with a SIGKILLed gateway whose watchdog was killed first', async () => {
    const { proc, spare } = await serveWithSpare('off');
    const [watchdog] = childrenNamed(proc.pid ?? 0, 'skillgate-watchdog');
    expect(watchdog).toBeDefined();
    process.kill(watchdog ?? 0, 'SIGKILL');
    proc.kill('SIGKILL');
    // Its wait descriptor reaches end-of-file: it exits without running anything.
    await waitFor(() => !isProcessAlive(spare), { timeoutMs: 5000, what: 'the spare to be gone' });
  });
});
