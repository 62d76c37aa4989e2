import { chmod, mkdir, realpath, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_FILES_PER_SKILL, scanSkillFiles } from '../src/load/scanSkillFiles.js';
import { tempDir, writeTree } from './helpers/fixtures.js';

const paths = (result: Awaited<ReturnType<typeof scanSkillFiles>>) => result.files.map((f) => f.path);
const skipped = (result: Awaited<ReturnType<typeof scanSkillFiles>>) =>
  result.problems.filter((p) => p.code === 'FILE_SKIPPED').map((p) => p.file);

describe('scanSkillFiles', () => {
  it('serves nested files, marks only files under scripts/ as scripts, and records the executable bit', async () => {
    const dir = await tempDir();
    await writeTree(dir, {
      'SKILL.md': 'x',
      'scripts/run.sh': 'echo',
      'scripts/lib/util.py': 'pass',
      'references/deep/er/doc.md': '# doc',
      'tools/scripts/not-a-script.sh': 'echo',
      'sub/SKILL.md': 'a nested SKILL.md is an ordinary file',
    });
    await chmod(join(dir, 'scripts/run.sh'), 0o755);
    const result = await scanSkillFiles(dir, 'skill');
    expect(result.files.map((f) => [f.path, f.isScript, f.isExecutable])).toEqual([
      ['references/deep/er/doc.md', false, false],
      ['scripts/lib/util.py', true, false],
      ['scripts/run.sh', true, true],
      ['sub/SKILL.md', false, false],
      ['tools/scripts/not-a-script.sh', false, false],
    ]);
    expect(result.problems).toEqual([]);
  });

  it('with interpreter extensions, makes scripts only of files that can run, and warns about the rest', async () => {
    const dir = await tempDir();
    await writeTree(dir, {
      'scripts/run.sh': 'echo',
      'scripts/check': '#!/bin/sh\necho ok\n',
      'scripts/README.md': '# how to run',
      'scripts/Makefile': 'all:',
      'references/notes.txt': 'not under scripts/, never a script',
    });
    await chmod(join(dir, 'scripts/check'), 0o755);
    const result = await scanSkillFiles(dir, 'skill', { interpreterExtensions: ['.SH', '.py'] });
    expect(result.files.map((f) => [f.path, f.isScript])).toEqual([
      ['references/notes.txt', false],
      ['scripts/Makefile', false],
      ['scripts/README.md', false],
      ['scripts/check', true],
      ['scripts/run.sh', true],
    ]);
    expect(result.problems).toEqual([
      {
        severity: 'warning',
        code: 'SCRIPT_NOT_RUNNABLE',
        file: join(dir, 'scripts/Makefile'),
        skill: 'skill',
        reason: expect.stringMatching(/^scripts\/Makefile: it has no extension .*no run tool/),
      },
      {
        severity: 'warning',
        code: 'SCRIPT_NOT_RUNNABLE',
        file: join(dir, 'scripts/README.md'),
        skill: 'skill',
        reason: expect.stringMatching(/^scripts\/README.md: no interpreter is configured for "\.md"/),
      },
    ]);
  });

  it('skips dotfiles, dot-directories and vendored trees with a short warning each', async () => {
    const dir = await tempDir();
    await writeTree(dir, {
      'keep.md': 'k',
      '.env': 'SECRET=1',
      '.git/config': 'x',
      'node_modules/pkg/index.js': 'x',
      '__pycache__/m.pyc': 'x',
      '.venv/bin/python': 'x',
      'scripts/venv/lib.py': 'x',
      'assets/bower_components/x.js': 'x',
      'scripts/.cache': 'x',
    });
    const result = await scanSkillFiles(dir, 'skill');
    expect(paths(result)).toEqual(['keep.md']);
    expect(skipped(result).sort()).toEqual(
      [
        '.env',
        '.git',
        '.venv',
        '__pycache__',
        'assets/bower_components',
        'node_modules',
        'scripts/.cache',
        'scripts/venv',
      ].map((p) => join(dir, p)),
    );
    for (const p of result.problems) {
      expect(p).toMatchObject({ severity: 'warning', skill: 'skill' });
      expect(p.reason.length).toBeLessThan(80);
    }
  });

  it('follows symlinks that stay inside the skill and skips those that leave it', async () => {
    const dir = await tempDir();
    const outside = await tempDir();
    await writeTree(outside, { 'secret.txt': 'secret', 'tree/a.txt': 'a' });
    await writeTree(dir, { 'references/real.md': 'real', 'shared/data.csv': 'a,b' });
    await symlink(join(dir, 'references/real.md'), join(dir, 'alias.md'));
    await symlink('../shared', join(dir, 'references/shared-link'));
    await symlink(join(outside, 'secret.txt'), join(dir, 'leak.txt'));
    await symlink(join(outside, 'tree'), join(dir, 'leak-dir'));
    await symlink('../../etc/passwd', join(dir, 'relative-leak'));
    const result = await scanSkillFiles(dir, 'skill');
    expect(paths(result)).toEqual([
      'alias.md',
      'references/real.md',
      'references/shared-link/data.csv',
      'shared/data.csv',
    ]);
    expect(skipped(result).sort()).toEqual([
      join(dir, 'leak-dir'),
      join(dir, 'leak.txt'),
      join(dir, 'relative-leak'),
    ]);
    expect(result.problems.every((p) => /outside|broken/.test(p.reason))).toBe(true);
    // A served link is pinned to the target it had at load time.
    expect(result.files[0]?.absolutePath).toBe(join(await realpath(dir), 'references/real.md'));
  });

  it('guards against symlink loops and reports broken links', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'a/file.txt': 'x' });
    await symlink('..', join(dir, 'a/up'));
    await symlink('.', join(dir, 'a/self'));
    await symlink('missing-target', join(dir, 'dangling'));
    await symlink('loop2', join(dir, 'loop1'));
    await symlink('loop1', join(dir, 'loop2'));
    const result = await scanSkillFiles(dir, 'skill');
    expect(paths(result)).toEqual(['a/file.txt']);
    expect(skipped(result).sort()).toEqual(
      ['a/self', 'a/up', 'dangling', 'loop1', 'loop2'].map((p) => join(dir, p)),
    );
  });

  it(`serves at most ${MAX_FILES_PER_SKILL} files and reports the rest`, async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'data'));
    const files: Record<string, string> = {};
    for (let i = 0; i < MAX_FILES_PER_SKILL + 5; i++) files[`data/f${String(i).padStart(4, '0')}.txt`] = '';
    await writeTree(dir, files);
    const result = await scanSkillFiles(dir, 'skill');
    expect(result.files).toHaveLength(MAX_FILES_PER_SKILL);
    expect(result.problems).toEqual([
      expect.objectContaining({
        code: 'FILE_SKIPPED',
        file: dir,
        reason: expect.stringContaining('data/f1000.txt'),
      }),
    ]);
  });
});
