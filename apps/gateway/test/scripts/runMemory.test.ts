import { createTempSkills, type TempSkills } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectClient,
  startTestGateway,
  type TestClient,
  type TestGateway,
  textOf,
} from '../helpers/testGateway.js';

// Regression test named after the attack of issue 17 item 8, "script memory bounded per process, not per
// run": one run with memory_mb: 128 held 646 MB across 9 processes, each within its own RLIMIT_DATA. With a
// memory cgroup per run, the run as a whole is held to memory_mb and the result names the limit.

// Six children of 40 MiB each (touched, so it is really held), every one within a 64 MiB per-process limit:
// 240 MiB for the run. Each child reports when it holds its share and waits; the parent prints "held" once
// all six do.
const HOG_PY = `import os, select, signal, sys
ready_r, ready_w = os.pipe()
for i in range(6):
    if os.fork() == 0:
        os.close(ready_r)
        block = b'x' * (40 * 1024 * 1024)
        os.write(ready_w, b'.')
        signal.pause()
os.close(ready_w)
got = 0
while got < 6:
    if select.select([ready_r], [], [], 0.1)[0]:
        got += len(os.read(ready_r, 6))
    pid, status = os.waitpid(-1, os.WNOHANG)
    if pid != 0:
        print('a child died: %d' % status)
        sys.exit(1)
print('held')
`;

describe.each(['off', 'bwrap'] as const)(
  'one run over memory_mb across many processes (sandbox %s)',
  (sandbox) => {
    let skills: TempSkills;
    let gw: TestGateway;
    let client: TestClient;

    beforeAll(async () => {
      skills = await createTempSkills(
        {
          hog: {
            description: 'Holds memory.',
            files: { 'scripts/hog.py': HOG_PY, 'scripts/ok.py': 'print("ran fine")\n' },
          },
        },
        'skillgate-memory-',
      );
      gw = await startTestGateway({
        skills: { roots: [skills.root], disclosure: 'eager' },
        scripts: { sandbox, limits: { memory_mb: 64 } },
      });
      client = await connectClient(gw.url);
    });

    afterAll(async () => {
      await client?.close();
      await gw?.close();
      await skills.close();
    });

    it('six processes of 40 MiB under memory_mb: 64: the run is stopped and reports limit_exceeded memory; a healthy run is unharmed', async () => {
      const isolation = await gw.gateway.runner.ready();
      expect(isolation.memoryCgroup).toBe(true);
      const [hog, healthy] = await Promise.all([
        client.client.callTool({ name: 'skill_hog_run_hog_py', arguments: {} }),
        client.client.callTool({ name: 'skill_hog_run_ok_py', arguments: {} }),
      ]);
      expect(hog.isError).toBe(true);
      expect((hog.structuredContent as { limit_exceeded?: string }).limit_exceeded).toBe('memory');
      expect(textOf(hog)).toContain('stopped by the scripts.limits.memory_mb limit');
      expect(textOf(hog)).not.toContain('held');
      expect(healthy.isError).toBeFalsy();
      expect(textOf(healthy)).toContain('ran fine');
    });
  },
);
