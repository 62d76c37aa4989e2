import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { EXAMPLES_ROOT, REPO_ROOT } from './helpers/testGateway.js';

const run = promisify(execFile);
const CLI = join(REPO_ROOT, 'apps/gateway/src/cli.ts');
const BROKEN = join(REPO_ROOT, 'packages/skills/test/fixtures/broken');

/** Runs the real CLI in a child process; resolves with its exit code and output whatever the code. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--conditions=@skillgate/source', '--import', 'tsx', CLI, ...args],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, SKILLGATE_CONFIG: '' },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('skillgate CLI', () => {
  it('validate: the bundled examples load without errors', async () => {
    const { code, stdout } = await cli('validate', EXAMPLES_ROOT);
    expect(code).toBe(0);
    expect(stdout).toMatch(/7 skills loaded, 0 errors/);
  });

  it('validate: reports every problem of a broken root with file, field and reason, and exits 1', async () => {
    const { code, stdout } = await cli('validate', BROKEN);
    expect(code).toBe(1);
    for (const problem of [
      'FRONTMATTER_INVALID',
      'FIELD_MISSING',
      'FIELD_INVALID',
      'FIELD_UNKNOWN',
      'NAME_MISMATCH',
      'NAME_CLASH',
      'SKILL_MD_MISSING',
      'FILE_SKIPPED',
    ]) {
      expect(stdout).toContain(problem);
    }
    expect(stdout).toContain(join(BROKEN, 'unknown-field', 'SKILL.md'));
    expect(stdout).toMatch(/\[description\]/);
  });

  it('validate --strict refuses skills that lenient mode serves', async () => {
    const lenient = await cli('validate', BROKEN);
    const strict = await cli('validate', '--strict', BROKEN);
    const loaded = (out: string) => Number(/(\d+) skills loaded/.exec(out)?.[1]);
    expect(loaded(strict.stdout)).toBeLessThan(loaded(lenient.stdout));
  });

  it('tools: prints only get_info tools, then the unlocked skill tools, all unique and within 48 chars', async () => {
    const base = await cli('tools', '--config', join(REPO_ROOT, 'configs/skillgate.yaml'));
    const baseNames = base.stdout.trim().split('\n');
    expect(baseNames).toHaveLength(7);
    expect(baseNames.every((n) => n.endsWith('_get_info'))).toBe(true);
    const skills = [
      'text-stats',
      'log-triage',
      'release-notes',
      'dataset-profile',
      'brand-assets',
      'csv-tools',
      'repo-hygiene',
    ];
    const all = await cli(
      'tools',
      '--config',
      join(REPO_ROOT, 'configs/skillgate.yaml'),
      ...skills.flatMap((s) => ['--unlock', s]),
    );
    const names = all.stdout.trim().split('\n');
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z0-9_-]{1,48}$/);
    expect(names).toContain('skill_csv-tools_run_csv_to_json_py');
    expect(names).toContain('skill_dataset-profile_run_async_profile_py');
    expect(names).toContain('skill_repo-hygiene_run_check-readme');
    // A 60-character name is cut to 48 and ends in a hash.
    expect(
      names.some((n) => n.startsWith('skill_release-notes_read_conventions_con') && /_[0-9a-f]{6}$/.test(n)),
    ).toBe(true);
  });

  it('tools: refuses an unknown skill with exit 2', async () => {
    const { code, stderr } = await cli('tools', '--unlock', 'nope');
    expect(code).toBe(2);
    expect(stderr).toContain('nope');
  });

  it('metadata: renders markdown, json and escaped xml', async () => {
    const json = JSON.parse((await cli('metadata', '--format', 'json')).stdout) as Array<{
      name: string;
      tool: string;
    }>;
    expect(json.map((s) => s.name)).toContain('text-stats');
    expect(json.find((s) => s.name === 'text-stats')?.tool).toBe('skill_text-stats_get_info');
    const xml = (await cli('metadata', '--format', 'xml')).stdout;
    expect(xml.trim().startsWith('<available_skills>')).toBe(true);
    expect(xml).not.toMatch(/&(?!amp;|lt;|gt;|quot;|apos;)/);
    const md = (await cli('metadata')).stdout;
    expect(md).toContain('**text-stats**');
  });

  it('reports a config error with its key path and exits 1', async () => {
    const { code, stderr } = await cli(
      'tools',
      '--config',
      join(REPO_ROOT, 'packages/config/test/fixtures/unknown-keys.yaml'),
    );
    expect(code).toBe(1);
    expect(stderr).toContain('server.prot');
  });

  it('serve refuses a public bind without tokens', async () => {
    const { code, stderr } = await cli('serve', '--host', '0.0.0.0', '--port', '0');
    expect(code).toBe(1);
    expect(stderr).toContain('auth.allow_anonymous');
  });
});
