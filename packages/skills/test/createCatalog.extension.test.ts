import { createHash } from 'node:crypto';
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Catalog, createCatalog, loadSkills, type Skill, type Validation } from '../src/index.js';
import { makeFifo, skillMd, tempDir, writeTree } from './helpers/fixtures.js';
import { makeSkill } from './helpers/skills.js';

const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

async function catalogOf(root: string, validation: Validation = 'lenient', digests = true): Promise<Catalog> {
  const { skills, problems } = await loadSkills({ roots: [root], validation, digests });
  return createCatalog(skills, { maxNameLength: 48, asyncEnabled: false, maxTimeoutSeconds: 60, problems });
}

const FULL_FRONTMATTER = [
  '---',
  'name: pdf-tools',
  'description: Fills and extracts PDF forms.',
  'license: Apache-2.0',
  'compatibility: Needs python3 and qpdf.',
  'metadata:',
  '  version: "2.1"',
  '  owner: docs-team',
  'allowed-tools: Bash(python3:*) Read',
  'x-review:',
  '  approved: true',
  '  reviewers: [ana, bo]',
  '---',
  '',
  '# PDF tools',
  '',
  'Read references/forms.md first.',
  '',
].join('\n');

describe('createCatalog: Skills extension entries', () => {
  it('publishes the frontmatter verbatim: license, metadata, allowed-tools and an unknown key', async () => {
    const root = await tempDir();
    await writeTree(root, { 'pdf-tools/SKILL.md': FULL_FRONTMATTER });
    const entry = (await catalogOf(root)).extension.entries.get('pdf-tools');
    expect(entry?.uri).toBe('skill://pdf-tools/SKILL.md');
    expect(entry?.frontmatter).toEqual({
      name: 'pdf-tools',
      description: 'Fills and extracts PDF forms.',
      license: 'Apache-2.0',
      compatibility: 'Needs python3 and qpdf.',
      metadata: { version: '2.1', owner: 'docs-team' },
      'allowed-tools': 'Bash(python3:*) Read',
      'x-review': { approved: true, reviewers: ['ana', 'bo'] },
    });
    // What goes on the wire is the same object: JSON keeps every field and its order.
    expect(Object.keys(JSON.parse(JSON.stringify(entry?.frontmatter)))).toEqual([
      'name',
      'description',
      'license',
      'compatibility',
      'metadata',
      'allowed-tools',
      'x-review',
    ]);
    expect(Object.isFrozen(entry)).toBe(true);
  });

  it('lists SKILL.md and every served file once, sorted by URI, each with the sha256 and size on disk', async () => {
    const root = await tempDir();
    await writeTree(root, {
      'pdf-tools/SKILL.md': FULL_FRONTMATTER,
      'pdf-tools/references/forms.md': '# Forms\n',
      'pdf-tools/scripts/fill.py': 'print("fill")\n',
      'pdf-tools/assets/blank.pdf': Buffer.from('%PDF-1.4\n\u0000\u0001binary'),
      'pdf-tools/templates/Q&A notes.md': 'q and a',
    });
    const catalog = await catalogOf(root);
    const entry = catalog.extension.entries.get('pdf-tools');
    const resources = entry?.resources;
    if (resources === undefined || resources === 'dynamic') throw new Error('no manifest');
    expect(resources.map((r) => r.uri)).toEqual([
      'skill://pdf-tools/SKILL.md',
      'skill://pdf-tools/assets/blank.pdf',
      'skill://pdf-tools/references/forms.md',
      'skill://pdf-tools/scripts/fill.py',
      'skill://pdf-tools/templates/Q&A%20notes.md',
    ]);
    for (const [resource, path] of resources.map(
      (r, i) =>
        [
          r,
          [
            'SKILL.md',
            'assets/blank.pdf',
            'references/forms.md',
            'scripts/fill.py',
            'templates/Q&A notes.md',
          ][i],
        ] as const,
    )) {
      const bytes = await readFile(join(root, 'pdf-tools', path ?? ''));
      expect(resource.digest, path).toBe(sha256(bytes));
      expect(resource.size, path).toBe(bytes.length);
      // Each URI is already in the form hosts normalize to.
      expect(new URL(resource.uri).href).toBe(resource.uri);
      expect(catalog.extension.resolveUri(resource.uri)?.file.path).toBe(path);
    }
  });

  it('a changed byte on disk gives a different digest in the next catalog', async () => {
    const root = await tempDir();
    await writeTree(root, { 'pdf-tools/SKILL.md': FULL_FRONTMATTER, 'pdf-tools/notes.md': 'AAAA' });
    const digestOf = async () => {
      const resources = (await catalogOf(root)).extension.entries.get('pdf-tools')?.resources;
      return Array.isArray(resources)
        ? resources.find((r) => r.uri.endsWith('/notes.md'))?.digest
        : undefined;
    };
    const before = await digestOf();
    await writeFile(join(root, 'pdf-tools', 'notes.md'), 'AAAB');
    const after = await digestOf();
    expect(before).toBe(sha256(Buffer.from('AAAA')));
    expect(after).toBe(sha256(Buffer.from('AAAB')));
  });

  it('excludes exactly what tools exclude: dotfiles, vendored trees, symlinks leaving the skill, FIFOs', async () => {
    const root = await tempDir();
    const outside = await tempDir();
    await writeTree(outside, { 'secret.txt': 'secret' });
    await writeTree(root, {
      'pdf-tools/SKILL.md': FULL_FRONTMATTER,
      'pdf-tools/keep.md': 'k',
      'pdf-tools/.env': 'TOKEN=1',
      'pdf-tools/node_modules/x/index.js': 'x',
      'pdf-tools/scripts/__pycache__/m.pyc': 'x',
    });
    await symlink(join(outside, 'secret.txt'), join(root, 'pdf-tools', 'leak.txt'));
    await symlink(join(root, 'pdf-tools', 'keep.md'), join(root, 'pdf-tools', 'alias.md'));
    makeFifo(join(root, 'pdf-tools', 'pipe.md'));
    const catalog = await catalogOf(root);
    const resources = catalog.extension.entries.get('pdf-tools')?.resources;
    if (!Array.isArray(resources)) throw new Error('no manifest');
    expect(resources.map((r) => r.uri)).toEqual([
      'skill://pdf-tools/SKILL.md',
      'skill://pdf-tools/alias.md',
      'skill://pdf-tools/keep.md',
    ]);
    const toolFiles = catalog.skills.get('pdf-tools')?.skill.files.map((f) => f.path);
    expect(toolFiles).toEqual(['alias.md', 'keep.md']);
    for (const path of [
      '.env',
      'node_modules/x/index.js',
      'scripts/__pycache__/m.pyc',
      'leak.txt',
      'pipe.md',
    ]) {
      expect(catalog.extension.resolveUri(`skill://pdf-tools/${path}`), path).toBeUndefined();
    }
  });

  it('resolves only the exact URI it publishes: traversal, absolute paths and other spellings name nothing', async () => {
    const root = await tempDir();
    await writeTree(root, {
      'pdf-tools/SKILL.md': FULL_FRONTMATTER,
      'pdf-tools/references/a b.md': 'spaced',
      'other/SKILL.md': skillMd('other'),
    });
    const { extension } = await catalogOf(root);
    expect(extension.resolveUri('skill://pdf-tools/references/a%20b.md')).toMatchObject({
      skill: 'pdf-tools',
      uri: 'skill://pdf-tools/references/a%20b.md',
      file: { path: 'references/a b.md', absolutePath: join(root, 'pdf-tools', 'references', 'a b.md') },
    });
    expect(extension.resolveUri('skill://pdf-tools/SKILL.md')?.file.absolutePath).toBe(
      join(root, 'pdf-tools', 'SKILL.md'),
    );
    for (const uri of [
      'skill://pdf-tools/references/a b.md',
      'skill://pdf-tools/references/../SKILL.md',
      'skill://pdf-tools/references/%2E%2E/SKILL.md',
      'skill://pdf-tools/../other/SKILL.md',
      'skill://pdf-tools//etc/passwd',
      'skill://pdf-tools/%2Fetc%2Fpasswd',
      `skill://pdf-tools/${join(root, 'pdf-tools', 'SKILL.md')}`,
      'skill://pdf-tools/skill.md',
      'skill://PDF-TOOLS/SKILL.md',
      'skill://pdf-tools/SKILL.md#x',
      'skill://pdf-tools/SKILL.md?x=1',
      'skill://pdf-tools',
      'skill://nope/SKILL.md',
      'file:///etc/passwd',
    ]) {
      expect(extension.resolveUri(uri), uri).toBeUndefined();
    }
  });

  it('publishes no entry for a skill lenient mode serves with a frontmatter hosts would refuse, and says why', async () => {
    const root = await tempDir();
    await writeTree(root, {
      'named-wrong/SKILL.md': skillMd('other-name'),
      'no-name/SKILL.md': '---\ndescription: Has no name.\n---\n',
      'long/SKILL.md': skillMd('long', 'y'.repeat(2000)),
      'fine/SKILL.md': skillMd('fine'),
    });
    const catalog = await catalogOf(root);
    expect([...catalog.skills.keys()].sort()).toEqual(['fine', 'long', 'no-name', 'other-name']);
    // A name that differs from its directory is still the last segment of the URI it is served under.
    expect([...catalog.extension.entries.keys()]).toEqual(['fine', 'other-name']);
    expect(catalog.extension.problems.map((p) => [p.code, p.skill])).toEqual([
      ['SKILL_NOT_PUBLISHED', 'long'],
      ['SKILL_NOT_PUBLISHED', 'no-name'],
    ]);
    expect(catalog.extension.problems[0]?.reason).toContain(
      'description must be a string of 1-1024 characters',
    );
    // Their files stay readable through tools, and through resources/read.
    expect(catalog.extension.resolveUri('skill://long/SKILL.md')).toBeDefined();
  });

  it('warns about a skill over the extension limits (512 files) and still publishes it', () => {
    const skill: Skill = makeSkill(
      'many',
      Array.from({ length: 512 }, (_, i) => `references/f${i}.md`),
    );
    const withDigests: Skill = {
      ...skill,
      skillMd: { ...skill.skillMd, digest: sha256(Buffer.from('x')) },
      files: skill.files.map((f) => ({ ...f, digest: sha256(Buffer.from(f.path)) })),
    };
    const catalog = createCatalog([withDigests], {
      maxNameLength: 48,
      asyncEnabled: false,
      maxTimeoutSeconds: 60,
    });
    expect(catalog.extension.entries.has('many')).toBe(true);
    expect(catalog.extension.problems.map((p) => p.code)).toEqual(['SKILL_OVER_LIMITS']);
    expect(catalog.extension.problems[0]?.reason).toMatch(/^513 files/);
  });

  it('marks resources dynamic when the catalog was loaded without digests', async () => {
    const root = await tempDir();
    await writeTree(root, { 'fine/SKILL.md': skillMd('fine'), 'fine/a.md': 'a' });
    const catalog = await catalogOf(root, 'strict', false);
    expect(catalog.extension.entries.get('fine')?.resources).toBe('dynamic');
  });
});

describe('createCatalog: prompts', () => {
  it('names one prompt per skill after its tool prefix and carries the body without frontmatter', async () => {
    const root = await tempDir();
    await writeTree(root, { 'pdf-tools/SKILL.md': FULL_FRONTMATTER, 'fine/SKILL.md': skillMd('fine') });
    const catalog = await catalogOf(root);
    expect([...catalog.prompts.keys()]).toEqual(['fine', 'pdf-tools']);
    expect(catalog.prompts.get('pdf-tools')).toEqual({
      name: 'pdf-tools',
      skill: 'pdf-tools',
      description: 'Fills and extracts PDF forms.',
      text: '# PDF tools\n\nRead references/forms.md first.',
    });
  });

  it('keeps prompt names within the tool-name budget, unique, with a hash when cut', () => {
    const long = `${'a'.repeat(40)}-one-${'b'.repeat(18)}`;
    const other = `${'a'.repeat(40)}-two-${'b'.repeat(18)}`;
    const catalog = createCatalog([makeSkill(long), makeSkill(other), makeSkill('short')], {
      maxNameLength: 32,
      asyncEnabled: false,
      maxTimeoutSeconds: 60,
    });
    const names = [...catalog.prompts.keys()];
    expect(names).toHaveLength(3);
    expect(new Set(names).size).toBe(3);
    expect(names.every((n) => n.length <= 32 && /^[a-z0-9_-]+$/.test(n))).toBe(true);
    expect(names[2]).toBe('short');
    expect(names[0]).toMatch(/^a+_[0-9a-f]{6}$/);
    expect(catalog.prompts.get(names[0] ?? '')?.skill).toBe(long);
  });
});
