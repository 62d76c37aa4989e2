import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { skillEntry } from '@modelcontextprotocol/server/ext/skills';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cliCommand.js';
import { EXAMPLES_ROOT } from '../helpers/testGateway.js';

const _run = promisify(execFile);

const cli = runCli;

interface Entry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: Array<{ uri: string; digest: string; size: number }>;
}

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const FILES: Record<string, string> = {
  'pdf-tools/SKILL.md': [
    '---',
    'name: pdf-tools',
    'description: Fills PDF forms.',
    'license: Apache-2.0',
    'metadata:',
    '  version: "2.1"',
    'allowed-tools: Bash(python3:*) Read',
    'x-review: approved',
    '---',
    '',
    '# PDF tools',
    '',
  ].join('\n'),
  'pdf-tools/references/forms guide.md': '# Forms\n',
  'pdf-tools/scripts/fill.py': 'print("fill")\n',
  'pdf-tools/.secret': 'not served',
  'broken/SKILL.md': `---\nname: broken\ndescription: ${'x'.repeat(1100)}\n---\n`,
};

async function skillRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'skillgate-cli-skills-'));
  dirs.push(root);
  for (const [path, content] of Object.entries(FILES)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

/** The file on disk behind a `skill://<name>/<path>` URI. */
const fileOf = (root: string, uri: string): string => {
  const url = new URL(uri);
  return join(root, url.host, ...url.pathname.slice(1).split('/').map(decodeURIComponent));
};

describe('skillgate skills', () => {
  it('--json prints the entries hosts get: verbatim frontmatter, every served file with the sha256 on disk', async () => {
    const root = await skillRoot();
    const { code, stdout, stderr } = await cli('skills', '--json', root);
    expect(code).toBe(0);
    const entries = JSON.parse(stdout) as Entry[];
    expect(entries.map((e) => e.uri)).toEqual(['skill://pdf-tools/SKILL.md']);
    const [entry] = entries;
    expect(entry?.frontmatter).toEqual({
      name: 'pdf-tools',
      description: 'Fills PDF forms.',
      license: 'Apache-2.0',
      metadata: { version: '2.1' },
      'allowed-tools': 'Bash(python3:*) Read',
      'x-review': 'approved',
    });
    expect(entry?.resources.map((r) => r.uri)).toEqual([
      'skill://pdf-tools/SKILL.md',
      'skill://pdf-tools/references/forms%20guide.md',
      'skill://pdf-tools/scripts/fill.py',
    ]);
    for (const r of entry?.resources ?? []) {
      const bytes = await readFile(fileOf(root, r.uri));
      expect(r.digest, r.uri).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
      expect(r.size, r.uri).toBe(bytes.length);
    }
    // The skill with a description over the specification limit is not published, and stderr says why.
    expect(stderr).toMatch(/SKILL_NOT_PUBLISHED broken: .*description/);
  });

  it('prints exactly the entry the SDK would build from the same bytes', async () => {
    const root = await skillRoot();
    // Names that need percent-encoding, spelled as the SDK spells them.
    await writeFile(join(root, 'pdf-tools', 'references', 'Q&A #1 (ü) 100%.md'), 'q');
    const entries = JSON.parse((await cli('skills', '--json', root)).stdout) as Entry[];
    const served = Object.fromEntries(
      await Promise.all(
        ['SKILL.md', 'references/forms guide.md', 'references/Q&A #1 (ü) 100%.md', 'scripts/fill.py'].map(
          async (path) => [path, await readFile(join(root, 'pdf-tools', path))] as const,
        ),
      ),
    );
    expect(entries[0]).toEqual(await skillEntry('pdf-tools', served));
  });

  it('a changed byte on disk changes the printed digest', async () => {
    const root = await skillRoot();
    const digestOf = async () =>
      (JSON.parse((await cli('skills', '--json', root)).stdout) as Entry[])[0]?.resources.find((r) =>
        r.uri.endsWith('fill.py'),
      )?.digest;
    const before = await digestOf();
    await writeFile(join(root, 'pdf-tools', 'scripts', 'fill.py'), 'print("fil1")\n');
    expect(await digestOf()).not.toBe(before);
  });

  it('without --json lists each skill URI, then digest, size and URI of each file', async () => {
    const { code, stdout } = await cli('skills', EXAMPLES_ROOT);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('skill://'))).toHaveLength(7);
    for (const line of lines.filter((l) => l.startsWith('  '))) {
      expect(line).toMatch(/^ {2}sha256:[0-9a-f]{64} +\d+ skill:\/\/[a-z0-9-]+\/\S+$/);
    }
  });
});

describe('skillgate skills --token', () => {
  it("prints only the entries a token's skills globs allow, in skills/list order", async () => {
    const root = await skillRoot();
    await mkdir(join(root, 'csv-tools'));
    await writeFile(join(root, 'csv-tools', 'SKILL.md'), '---\nname: csv-tools\ndescription: CSV.\n---\n');
    const config = join(root, 'skillgate.yaml');
    await writeFile(
      config,
      [
        'skills:',
        `  roots: [${JSON.stringify(root)}]`,
        'auth:',
        '  anonymous_skills: ["csv-*"]',
        '  tokens:',
        '    - { name: pdf, token_env: PDF_TOKEN, skills: ["pdf-*"] }',
        '    - { name: none, token_env: NONE_TOKEN, skills: ["nothing-*"] }',
        '',
      ].join('\n'),
    );
    const uris = async (...args: string[]) => {
      const { code, stdout } = await cli('skills', '--json', '--config', config, ...args);
      expect(code).toBe(0);
      return (JSON.parse(stdout) as Entry[]).map((e) => e.uri);
    };
    expect(await uris()).toEqual(['skill://csv-tools/SKILL.md', 'skill://pdf-tools/SKILL.md']);
    expect(await uris('--token', 'pdf')).toEqual(['skill://pdf-tools/SKILL.md']);
    expect(await uris('--token', 'anonymous')).toEqual(['skill://csv-tools/SKILL.md']);
    expect(await uris('--token', 'none')).toEqual([]);
    const unknown = await cli('skills', '--config', config, '--token', 'nobody');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no token named "nobody" in the config (known: anonymous, pdf, none)');
    // `tools --token` resolves the name the same way and lists only that token's skills.
    const tools = await cli('tools', '--config', config, '--token', 'pdf');
    expect(tools.stdout.trim().split('\n')).toEqual(['skill_pdf-tools_get_info']);
    const unknownTools = await cli('tools', '--config', config, '--token', 'nobody');
    expect(unknownTools.code).toBe(2);
    expect(unknownTools.stderr).toContain('no token named "nobody"');
    // Seven CLI processes, each starting tsx: far slower than one test usually is.
  }, 120_000);
});

describe('skillgate validate: size caps', () => {
  it('reports a 50 MB SKILL.md and an over-long description, and exits 1 only for the refused skill', async () => {
    const root = await skillRoot();
    await mkdir(join(root, 'huge'));
    await writeFile(join(root, 'huge', 'SKILL.md'), '---\nname: huge\ndescription: d\n---\n');
    await truncate(join(root, 'huge', 'SKILL.md'), 50 * 2 ** 20);
    const { code, stdout } = await cli('validate', root);
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /error +SKILL_MD_TOO_LARGE .*huge\/SKILL\.md: SKILL\.md is 52428800 bytes, over the 262144-byte limit/,
    );
    expect(stdout).toMatch(
      /warning +FIELD_INVALID .*broken\/SKILL\.md \[description\]: description is 1100 characters, longer than 1024; serving its first 1024/,
    );
  });
});
