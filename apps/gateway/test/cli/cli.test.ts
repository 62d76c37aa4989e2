import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '@skillgate/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { cliArgs, runCli } from '../helpers/cliCommand.js';
import { connectClient, EXAMPLES_ROOT, REPO_ROOT, toolNames } from '../helpers/testGateway.js';

const _run = promisify(execFile);
const BROKEN = join(REPO_ROOT, 'packages/skills/test/fixtures/broken');

const cli = runCli;

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
    // Every bundled tool name fits as it is: no hash suffixes (shortening is tested in packages/skills).
    expect(names).toContain('skill_release-notes_read_conventions_commits_md');
    expect(names.filter((n) => /_[0-9a-f]{6}$/.test(n))).toEqual([]);
  });

  it('tools: refuses an unknown skill with exit 2', async () => {
    const { code, stderr } = await cli('tools', '--unlock', 'nope');
    expect(code).toBe(2);
    expect(stderr).toContain('nope');
  });

  it('metadata: renders markdown, json and escaped xml', async () => {
    const bundled = ['--config', join(REPO_ROOT, 'configs/skillgate.yaml')];
    const json = JSON.parse((await cli('metadata', ...bundled, '--format', 'json')).stdout) as Array<{
      name: string;
      tool: string;
    }>;
    expect(json.map((s) => s.name)).toContain('text-stats');
    expect(json.find((s) => s.name === 'text-stats')?.tool).toBe('skill_text-stats_get_info');
    const xml = (await cli('metadata', ...bundled, '--format', 'xml')).stdout;
    expect(xml.trim().startsWith('<available_skills>')).toBe(true);
    expect(xml).not.toMatch(/&(?!amp;|lt;|gt;|quot;|apos;)/);
    const md = (await cli('metadata', ...bundled)).stdout;
    expect(md).toContain('**text-stats**');
  });

  it('serves no skill root by default: without a config or ROOT, metadata lists nothing', async () => {
    const { code, stdout } = await cli('metadata', '--format', 'json');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual([]);
  });

  it('reads a renamed key as its new name and names the new key on stderr', async () => {
    const root = await mkdtemp(join(tmpdir(), 'skillgate-renamed-'));
    roots.push(root);
    await writeFile(
      join(root, 'skillgate.yaml'),
      `skills:\n  roots: [${EXAMPLES_ROOT}]\n  lock_file: ./pins.lock.yaml\nscripts:\n  default_timeout: 12\n`,
    );
    const { code, stderr } = await cli('validate', '--config', join(root, 'skillgate.yaml'));
    expect(code).toBe(0);
    expect(stderr).toContain('config key skills.lock_file is deprecated: write sources.lock_file');
    expect(stderr).toContain(
      'config key scripts.default_timeout is deprecated: write scripts.default_timeout_seconds',
    );
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

/** A skills root in a temporary folder: one skill, a folder that is not a skill, a file that cannot run. */
async function myRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'skillgate-cli-'));
  roots.push(root);
  const files: Record<string, string> = {
    'my-skill/SKILL.md':
      '---\nname: my-skill\ndescription: Reports things. Use for reports.\n---\n\n# My skill\n',
    'my-skill/scripts/report.py': 'print("report")\n',
    'my-skill/scripts/requirements.txt': 'nothing==1.0\n',
    'my-skill/references/guide.md': '# guide\n',
    'shared-notes/README.md': 'notes shared by the skills, not a skill\n',
  };
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

describe('skillgate CLI with skill folders as arguments', () => {
  it('tools ROOT --unlock SKILL: prints the tools of exactly those skills; a script that cannot run has no run tool', async () => {
    const root = await myRoot();
    // A path relative to the cwd, as a user types it.
    const { code, stdout } = await cli('tools', relative(REPO_ROOT, root), '--unlock', 'my-skill');
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toEqual([
      'skill_my-skill_get_info',
      'skill_my-skill_read_guide_md',
      'skill_my-skill_run_report_py',
      'skill_my-skill_read_report_py',
      'skill_my-skill_read_requirements_txt',
    ]);
  });

  it('metadata ROOT: summarizes only the skills of that folder', async () => {
    const root = await myRoot();
    const { code, stdout } = await cli('metadata', root, '--format', 'json');
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as Array<{ name: string }>).map((s) => s.name)).toEqual(['my-skill']);
  });

  it('validate ROOT: a folder without SKILL.md and a script that cannot run are warnings, exit 0; --strict exits 1', async () => {
    const root = await myRoot();
    const lenient = await cli('validate', root);
    expect(lenient.code).toBe(0);
    const lines = lenient.stdout.trim().split('\n');
    expect(lines).toContainEqual(
      expect.stringMatching(/^warning +SKILL_MD_MISSING .*shared-notes\/SKILL\.md: skipped: no SKILL\.md/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^warning +SCRIPT_NOT_RUNNABLE .*my-skill\/scripts\/requirements\.txt: .*no run tool/,
      ),
    );
    expect(lines.at(-1)).toBe('1 skills loaded, 0 errors, 2 warnings');
    const strict = await cli('validate', '--strict', root);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/^error +SKILL_MD_MISSING .*shared-notes/m);
  });

  it('validate: an allowed-tools binding to no configured upstream is a warning; a configured one is not', async () => {
    const root = await mkdtemp(join(tmpdir(), 'skillgate-cli-'));
    roots.push(root);
    await mkdir(join(root, 'skills/binder'), { recursive: true });
    await writeFile(
      join(root, 'skills/binder/SKILL.md'),
      '---\nname: binder\ndescription: Binds upstream tools.\nallowed-tools: Read mcp__files__read_* mcp__nowhere__*\n---\n\n# Binder\n',
    );
    await writeFile(
      join(root, 'skillgate.yaml'),
      'skills:\n  roots: [skills]\nupstreams:\n  - id: files\n    command: [node, server.js]\n    skill: none\n',
    );
    const { code, stdout } = await cli('validate', '--config', join(root, 'skillgate.yaml'));
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^warning +UPSTREAM_UNKNOWN .*binder\/SKILL\.md \[allowed-tools\]: mcp__nowhere__\* names no configured upstream/,
      ),
    );
    expect(stdout).not.toContain('mcp__files__');
    expect(lines.at(-1)).toBe('1 skills loaded, 0 errors, 1 warnings');
  });

  it('tools --unlock: shows the call tools of an upstream (a real MCP server over stdio) and of a binding', async () => {
    const root = await mkdtemp(join(tmpdir(), 'skillgate-cli-'));
    roots.push(root);
    await mkdir(join(root, 'skills/sums'), { recursive: true });
    await writeFile(
      join(root, 'skills/sums/SKILL.md'),
      '---\nname: sums\ndescription: Adds numbers.\nallowed-tools: mcp__everything__get-sum\n---\n\n# Sums\n',
    );
    const everything = createRequire(import.meta.url).resolve(
      '@modelcontextprotocol/server-everything/dist/index.js',
    );
    await writeFile(
      join(root, 'skillgate.yaml'),
      `skills:\n  roots: [skills]\nupstreams:\n  - id: everything\n    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(everything)}, stdio]\n    tools: [echo, get-sum]\n  - id: gone\n    url: http://127.0.0.1:9/mcp\n`,
    );
    const config = join(root, 'skillgate.yaml');
    const unlocked = await cli(
      'tools',
      '--config',
      config,
      '--unlock',
      'sums',
      '--unlock',
      'everything',
      '--unlock',
      'gone',
    );
    expect(unlocked.code).toBe(0);
    expect(unlocked.stdout.trim().split('\n')).toEqual([
      'skill_sums_get_info',
      'skill_everything_get_info',
      'skill_gone_get_info',
      'skill_sums_call_get-sum',
      'skill_everything_call_echo',
      'skill_everything_call_get-sum',
    ]);
    // The upstream nothing listens for has no call tools to show, and the CLI says why instead of nothing.
    expect(unlocked.stderr).toMatch(
      /^note: upstream "gone" is down \(connect failed: .+\): its call tools are not listed$/m,
    );
    expect(unlocked.stderr).not.toContain('"everything"');
    const catalogMode = await cli('tools', '--config', config, '--disclosure', 'catalog');
    expect(catalogMode.stdout).toContain('call_skill_tool');
    expect(catalogMode.stdout).not.toContain('_call_');
    // Each run starts the CLI and the upstream server anew.
  }, 90_000);

  it('refuses a ROOT that is not a folder with exit 2', async () => {
    const { code, stderr } = await cli('tools', join(REPO_ROOT, 'no-such-folder'));
    expect(code).toBe(2);
    expect(stderr).toContain('not a folder');
  });

  it('serve ROOT: serves exactly the skills of that folder', async () => {
    const root = await myRoot();
    const child = spawn(process.execPath, [...cliArgs(), 'serve', root, '--port', '0'], {
      cwd: REPO_ROOT,
      env: { ...process.env, SKILLGATE_CONFIG: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    try {
      const addressOf = () => /"address":"(http:\/\/[^"]+)"/.exec(output)?.[1];
      await waitFor(() => addressOf() !== undefined, { timeoutMs: 30_000, what: 'the listening line' }).catch(
        (error: unknown) => {
          throw new Error(`${String(error)}; output so far:\n${output}`);
        },
      );
      const address = addressOf() ?? '';
      const client = await connectClient(new URL('/mcp', address));
      expect(await toolNames(client.client)).toEqual(['skill_my-skill_get_info']);
      await client.close();
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
