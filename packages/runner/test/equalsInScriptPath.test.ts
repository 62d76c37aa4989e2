import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createScriptRunner, probeSandbox, type ScriptRunner } from '../src/index.js';
import { runnerOptions } from './helpers.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((close) => close()));
});

describe('a script whose path holds "="', () => {
  // env(1) takes every operand with "=" before its command as an assignment, "--" or not: the path of such a
  // script became a variable and env ran the caller's first argument as the command instead.
  it.each(['off', 'bwrap'] as const)(
    'runs that script, never the caller first argument (sandbox %s)',
    async (sandbox) => {
      const work = await mkdtemp(join(tmpdir(), 'skillgate-equals-'));
      const skillDir = join(work, 'key=value');
      await mkdir(join(skillDir, 'scripts'), { recursive: true });
      const script = join(skillDir, 'scripts', 'tool');
      await writeFile(script, '#!/bin/sh\necho "script ran with $#"\n');
      await chmod(script, 0o755);
      const runner: ScriptRunner = createScriptRunner(
        runnerOptions(sandbox === 'off' ? {} : { sandbox: await probeSandbox({ mode: sandbox }) }),
      );
      cleanup.push(async () => {
        await runner.close();
        await rm(work, { recursive: true, force: true });
      });
      const result = await runner.run({
        skillName: 'equals',
        skillDir,
        scriptPath: script,
        executable: true,
        principal: 'alice',
        args: ['echo', 'INJECTED'],
      });
      expect(result.stdout).toBe('script ran with 2\n');
      expect(result.exit_code).toBe(0);
    },
  );
});
