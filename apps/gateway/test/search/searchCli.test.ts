import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cliCommand.js';
import { EXAMPLES_ROOT } from '../helpers/testGateway.js';

const _run = promisify(execFile);

const cli = runCli;

describe('skillgate search', () => {
  it('ranks the skills of the given folders for a query, as search_skills does (--json)', async () => {
    const { code, stdout } = await cli(
      'search',
      '--json',
      '--limit',
      '2',
      EXAMPLES_ROOT,
      'summarise a log file',
    );
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as { results: Array<{ skill: string }>; nextCursor?: string };
    expect(out.results.map((r) => r.skill)[0]).toBe('log-triage');
    expect(out.results).toHaveLength(2);
    expect(out.nextCursor).toBeDefined();
  });

  it('refuses a --limit out of range with the usage exit code', async () => {
    const { code, stderr } = await cli('search', '--limit', '21', EXAMPLES_ROOT, 'logs');
    expect(code).toBe(2);
    expect(stderr).toContain('--limit');
  });

  it('tools: says when tools.max_listed switches the list to search', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'skillgate-cap-'));
    const config = join(dir, 'skillgate.yaml');
    await writeFile(
      config,
      `skills:\n  roots: [${JSON.stringify(EXAMPLES_ROOT)}]\ntools:\n  max_listed: 3\n`,
    );
    const { code, stdout, stderr } = await cli('tools', '--config', config);
    await rm(dir, { recursive: true, force: true });
    expect(code).toBe(0);
    expect(stderr).toContain('tools.max_listed (3)');
    expect(stdout.split('\n')).toContain('search_skills');
  });
});
