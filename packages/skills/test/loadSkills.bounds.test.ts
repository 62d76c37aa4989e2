import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type LoadResult, loadSkills } from '../src/index.js';
import { makeFifo, skillMd, sparseFile, tempDir, writeTree } from './helpers/fixtures.js';

const names = (result: LoadResult) => result.skills.map((s) => s.name);
const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

// Regression tests named after the attack they guard against (issue 10: files that stall or flood a load).
describe('loadSkills: hostile files', () => {
  it('a FIFO as SKILL.md is refused at once and the other skills load', async () => {
    const root = await tempDir();
    await writeTree(root, { 'a/SKILL.md': skillMd('a'), 'c/SKILL.md': skillMd('c'), 'b/notes.md': 'n' });
    makeFifo(join(root, 'b', 'SKILL.md'));
    const started = Date.now();
    const result = await loadSkills({ roots: [root], validation: 'lenient' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(names(result)).toEqual(['a', 'c']);
    expect(result.problems).toEqual([
      expect.objectContaining({
        code: 'SKILL_MD_MISSING',
        severity: 'error',
        file: join(root, 'b', 'SKILL.md'),
        reason: 'SKILL.md is not a regular file',
      }),
    ]);
  });

  it('a FIFO among the files of a skill is skipped with a warning, the rest is served', async () => {
    const root = await tempDir();
    await writeTree(root, { 'a/SKILL.md': skillMd('a'), 'a/references/keep.md': 'k' });
    makeFifo(join(root, 'a', 'references', 'pipe.md'));
    const result = await loadSkills({ roots: [root], validation: 'strict' });
    expect(result.skills[0]?.files.map((f) => f.path)).toEqual(['references/keep.md']);
    expect(result.problems).toEqual([
      expect.objectContaining({
        code: 'FILE_SKIPPED',
        reason: 'references/pipe.md: not a regular file',
      }),
    ]);
  });

  it('a 50 MB SKILL.md (sparse) is refused without being read whole, reported as SKILL_MD_TOO_LARGE', async () => {
    const root = await tempDir();
    await writeTree(root, { 'ok/SKILL.md': skillMd('ok') });
    const huge = join(root, 'huge', 'SKILL.md');
    await writeTree(root, { 'huge/SKILL.md': skillMd('huge') });
    await sparseFile(huge, 50 * 2 ** 20);
    const before = process.memoryUsage().rss;
    const result = await loadSkills({ roots: [root], validation: 'lenient' });
    expect(process.memoryUsage().rss - before).toBeLessThan(40 * 2 ** 20);
    expect(names(result)).toEqual(['ok']);
    expect(result.problems).toEqual([
      expect.objectContaining({ code: 'SKILL_MD_TOO_LARGE', severity: 'error', file: huge }),
    ]);
    expect(result.problems[0]?.reason).toContain('52428800 bytes, over the 262144-byte limit');
  });

  it('a SKILL.md of 50 MB of repeated real text is refused too, and a lower cap applies', async () => {
    const root = await tempDir();
    const body = `# Huge\n\n${'All work and no play. '.repeat(2_400_000)}`;
    await writeTree(root, {
      'huge/SKILL.md': `${skillMd('huge')}${body}`,
      'small/SKILL.md': skillMd('small'),
    });
    const result = await loadSkills({ roots: [root], validation: 'lenient' });
    expect(names(result)).toEqual(['small']);
    expect(result.problems.map((p) => p.code)).toEqual(['SKILL_MD_TOO_LARGE']);
    const tight = await loadSkills({ roots: [root], validation: 'lenient', maxSkillMdBytes: 20 });
    expect(names(tight)).toEqual([]);
  });

  it('a 1 MB description is cut to 1024 characters, never served whole', async () => {
    const root = await tempDir();
    await writeTree(root, { 'big/SKILL.md': skillMd('big', 'x'.repeat(1_000_000)) });
    const result = await loadSkills({ roots: [root], validation: 'lenient', maxSkillMdBytes: 2 * 2 ** 20 });
    expect(result.skills[0]?.description).toHaveLength(1024);
    expect(result.problems.map((p) => [p.code, p.field])).toEqual([['FIELD_INVALID', 'description']]);
  });
});

describe('loadSkills: digests', () => {
  it('gives SKILL.md and every served file the sha256 and size of its bytes on disk', async () => {
    const root = await tempDir();
    await writeTree(root, {
      'd/SKILL.md': skillMd('d'),
      'd/references/guide.md': '# Guide\n',
      'd/assets/blob.bin': Buffer.from([0, 1, 2, 255, 254]),
      'd/scripts/run.py': 'print(1)\n',
    });
    const [skill] = (await loadSkills({ roots: [root], validation: 'strict' })).skills;
    if (skill === undefined) throw new Error('not loaded');
    for (const file of [skill.skillMd, ...skill.files]) {
      const bytes = await readFile(join(root, 'd', file.path));
      expect(file.digest, file.path).toBe(sha256(bytes));
      expect(file.size, file.path).toBe(bytes.length);
    }
    expect(skill.skillMd).toMatchObject({ path: 'SKILL.md', mimeType: 'text/markdown', isBinary: false });
  });

  it('a changed byte changes the digest (the check can fail), and digests: false leaves them out', async () => {
    const root = await tempDir();
    await writeTree(root, { 'd/SKILL.md': skillMd('d'), 'd/notes.md': 'version A\n' });
    const first = (await loadSkills({ roots: [root], validation: 'strict' })).skills[0]?.files[0]?.digest;
    await writeFile(join(root, 'd', 'notes.md'), 'version B\n');
    const second = (await loadSkills({ roots: [root], validation: 'strict' })).skills[0]?.files[0]?.digest;
    expect(first).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(second).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(second).not.toBe(first);
    const without = await loadSkills({ roots: [root], validation: 'strict', digests: false });
    expect(without.skills[0]?.files[0]?.digest).toBeUndefined();
    expect(without.skills[0]?.skillMd.digest).toBeUndefined();
  });
});
