import { symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type LoadResult, loadSkills, type ProblemCode } from '../src/index.js';
import { fixture, skillMd, tempDir, writeTree } from './helpers/fixtures.js';

const names = (result: LoadResult) => result.skills.map((s) => s.name);
const problemCodes = (result: LoadResult) => new Set(result.problems.map((p) => p.code));

describe('loadSkills', () => {
  it('loads every skill directory of a root in path order, skipping dot-directories and plain files', async () => {
    const result = await loadSkills({ roots: [fixture('good')], validation: 'strict' });
    expect(names(result)).toEqual(['alpha', 'beta']);
    expect(result.problems).toEqual([]);
  });

  it('records the skill fields, directory and root as absolute paths', async () => {
    const { skills } = await loadSkills({
      roots: [relative(process.cwd(), fixture('good'))],
      validation: 'lenient',
    });
    const alpha = skills[0];
    expect(alpha).toMatchObject({
      name: 'alpha',
      description: 'Builds alpha reports from CSV files. Use when asked for an alpha report.',
      license: 'MIT',
      compatibility: 'Requires bash and python3.',
      metadata: { version: '1.0', owner: 'docs-team' },
      allowedTools: 'Bash Read',
      dir: fixture('good', 'alpha'),
      root: fixture('good'),
    });
    expect(alpha?.body).toBe('# Alpha\n\nRun `scripts/build.sh` with the CSV file as the only argument.');
  });

  it('serves every file but SKILL.md, recursively, sorted, with POSIX paths and sniffed types', async () => {
    const { skills } = await loadSkills({ roots: [fixture('good')], validation: 'lenient' });
    const files = skills[0]?.files ?? [];
    expect(files.map((f) => [f.path, f.isScript, f.mimeType, f.isBinary])).toEqual([
      ['assets/logo.png', false, 'image/png', true],
      ['data.unknownext', false, 'text/plain', false],
      ['legacy.dat', false, 'application/octet-stream', true],
      ['notes.txt', false, 'text/plain', false],
      ['references/api/v2.md', false, 'text/markdown', false],
      ['scripts/build.sh', true, 'application/x-sh', false],
      ['scripts/lib/helper.py', true, 'text/x-python', false],
    ]);
    const build = files.find((f) => f.path === 'scripts/build.sh');
    expect(build).toMatchObject({ absolutePath: fixture('good', 'alpha', 'scripts', 'build.sh'), size: 39 });
    expect(skills[1]?.files).toEqual([]);
  });

  it('lets the first root win a name clash and reports the loser', async () => {
    const result = await loadSkills({ roots: [fixture('good'), fixture('shadow')], validation: 'strict' });
    expect(names(result)).toEqual(['alpha', 'beta', 'gamma']);
    expect(result.skills[0]?.dir).toBe(fixture('good', 'alpha'));
    expect(result.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        code: 'NAME_CLASH',
        file: fixture('shadow', 'alpha', 'SKILL.md'),
        skill: 'alpha',
      }),
    ]);

    const reversed = await loadSkills({ roots: [fixture('shadow'), fixture('good')], validation: 'strict' });
    expect(names(reversed)).toEqual(['alpha', 'gamma', 'beta']);
    expect(reversed.skills[0]?.dir).toBe(fixture('shadow', 'alpha'));
  });

  it('lets the first path win a clash inside one root', async () => {
    const result = await loadSkills({ roots: [fixture('broken')], validation: 'lenient' });
    const dup = result.skills.find((s) => s.name === 'dup-first');
    expect(dup?.dir).toBe(fixture('broken', 'dup-first'));
    expect(result.problems).toContainEqual(
      expect.objectContaining({ code: 'NAME_CLASH', file: fixture('broken', 'dup-second', 'SKILL.md') }),
    );
  });

  it('reads a root listed twice only once', async () => {
    const result = await loadSkills({
      roots: [fixture('good'), `${fixture('good')}/`],
      validation: 'strict',
    });
    expect(names(result)).toEqual(['alpha', 'beta']);
    expect(result.problems).toEqual([]);
  });

  it('reports a missing or non-directory root and goes on with the others', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'not-a-dir'), 'x');
    const missing = join(dir, 'missing');
    const result = await loadSkills({
      roots: [missing, join(dir, 'not-a-dir'), fixture('good')],
      validation: 'lenient',
    });
    expect(names(result)).toEqual(['alpha', 'beta']);
    expect(result.problems.map((p) => [p.code, p.severity, p.file])).toEqual([
      ['ROOT_UNREADABLE', 'error', missing],
      ['ROOT_UNREADABLE', 'error', join(dir, 'not-a-dir')],
    ]);
  });

  describe('the broken fixture root', () => {
    it('serves what lenient mode can and reports every problem code', async () => {
      const result = await loadSkills({ roots: [fixture('broken')], validation: 'lenient' });
      expect(names(result)).toEqual([
        'bad-fields',
        'Bad--Name',
        'dup-first',
        'long-description',
        'long-paths',
        'mismatched',
        'no-name',
        'skipped-files',
        'tool-clash',
        'unknown-field',
      ]);
      const expected: ProblemCode[] = [
        'SKILL_MD_MISSING',
        'FRONTMATTER_INVALID',
        'FIELD_MISSING',
        'FIELD_INVALID',
        'FIELD_UNKNOWN',
        'NAME_MISMATCH',
        'NAME_CLASH',
        'FILE_SKIPPED',
      ];
      expect([...problemCodes(result)].sort()).toEqual([...expected].sort());
    });

    it('refuses every skill with a finding in strict mode', async () => {
      const result = await loadSkills({ roots: [fixture('broken')], validation: 'strict' });
      expect(names(result)).toEqual(['dup-first', 'long-paths', 'skipped-files', 'tool-clash']);
      const refusedDirs = [
        'bad-fields',
        'bad-name',
        'long-description',
        'name-mismatch',
        'no-name',
        'unknown-field',
      ];
      for (const dir of refusedDirs) {
        const problems = result.problems.filter((p) => p.file === fixture('broken', dir, 'SKILL.md'));
        expect(problems.length, dir).toBeGreaterThan(0);
        expect(problems.every((p) => p.severity === 'error')).toBe(true);
      }
    });

    it('locates every problem by absolute file, with a field for frontmatter problems and a reason', async () => {
      const result = await loadSkills({ roots: [fixture('broken')], validation: 'lenient' });
      for (const p of result.problems) {
        expect(p.file.startsWith(fixture('broken'))).toBe(true);
        expect(p.reason.length).toBeGreaterThan(5);
        if (p.code.startsWith('FIELD_') || p.code === 'NAME_MISMATCH') expect(p.field).toBeDefined();
      }
    });

    it('never evaluates the JavaScript frontmatter of js-frontmatter', async () => {
      await loadSkills({ roots: [fixture('broken')], validation: 'lenient' });
      expect((globalThis as Record<string, unknown>).skillgatePwned).toBeUndefined();
    });
  });

  it('reports a directory without SKILL.md and loads its siblings', async () => {
    const root = await tempDir();
    await writeTree(root, {
      'a/SKILL.md': skillMd('a'),
      'b/notes.md': 'no skill here',
      'c/SKILL.md': skillMd('c'),
    });
    const result = await loadSkills({ roots: [root], validation: 'strict' });
    expect(names(result)).toEqual(['a', 'c']);
    expect(result.problems).toEqual([
      expect.objectContaining({
        code: 'SKILL_MD_MISSING',
        severity: 'error',
        file: join(root, 'b', 'SKILL.md'),
      }),
    ]);
  });

  it('calls a folder without SKILL.md skipped: a warning in lenient mode, an error in strict mode', async () => {
    const root = await tempDir();
    await writeTree(root, { 'a/SKILL.md': skillMd('a'), 'shared/notes.md': 'not a skill' });
    const lenient = await loadSkills({ roots: [root], validation: 'lenient' });
    expect(names(lenient)).toEqual(['a']);
    expect(lenient.problems).toEqual([
      expect.objectContaining({
        code: 'SKILL_MD_MISSING',
        severity: 'warning',
        file: join(root, 'shared', 'SKILL.md'),
        reason: expect.stringMatching(/^skipped: no SKILL\.md/),
      }),
    ]);
    const strict = await loadSkills({ roots: [root], validation: 'strict' });
    expect(strict.problems.map((p) => p.severity)).toEqual(['error']);
  });

  it('reports a skill.md named in the wrong case as an error even in lenient mode', async () => {
    const root = await tempDir();
    await writeTree(root, { 'pdf/skill.md': skillMd('pdf') });
    const result = await loadSkills({ roots: [root], validation: 'lenient' });
    expect(result.skills).toEqual([]);
    expect(result.problems).toEqual([
      expect.objectContaining({
        code: 'SKILL_MD_MISSING',
        severity: 'error',
        reason: expect.stringContaining('"skill.md"'),
      }),
    ]);
  });

  it('gives a file under scripts/ that no interpreter can run no run tool, and reports it', async () => {
    const root = await tempDir();
    await writeTree(root, {
      'a/SKILL.md': skillMd('a'),
      'a/scripts/go.py': 'print(1)',
      'a/scripts/data.csv': 'x,y',
    });
    const result = await loadSkills({ roots: [root], validation: 'strict', interpreterExtensions: ['.py'] });
    expect(result.skills[0]?.files.map((f) => [f.path, f.isScript])).toEqual([
      ['scripts/data.csv', false],
      ['scripts/go.py', true],
    ]);
    expect(result.problems).toEqual([
      expect.objectContaining({
        code: 'SCRIPT_NOT_RUNNABLE',
        severity: 'warning',
        file: join(root, 'a/scripts/data.csv'),
      }),
    ]);
  });

  it('follows a symlinked skill directory in a root', async () => {
    const root = await tempDir();
    const elsewhere = await tempDir();
    await writeTree(elsewhere, { 'linked/SKILL.md': skillMd('linked'), 'linked/notes.md': 'n' });
    await symlink(join(elsewhere, 'linked'), join(root, 'linked'));
    const result = await loadSkills({ roots: [root], validation: 'strict' });
    expect(names(result)).toEqual(['linked']);
    expect(result.skills[0]?.files.map((f) => f.path)).toEqual(['notes.md']);
  });

  it('refuses a SKILL.md that is a symlink leading outside its skill', async () => {
    const root = await tempDir();
    const elsewhere = await tempDir();
    await writeTree(elsewhere, { 'SKILL.md': skillMd('sneaky') });
    await writeTree(root, { 'sneaky/notes.md': 'n' });
    await symlink(join(elsewhere, 'SKILL.md'), join(root, 'sneaky', 'SKILL.md'));
    const result = await loadSkills({ roots: [root], validation: 'lenient' });
    expect(result.skills).toEqual([]);
    expect(result.problems.map((p) => p.code)).toEqual(['SKILL_MD_MISSING']);
  });
});
