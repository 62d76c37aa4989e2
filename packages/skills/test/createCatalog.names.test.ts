import { describe, expect, it } from 'vitest';
import {
  type Catalog,
  type CatalogSkill,
  createCatalog,
  fileToolSuffix,
  loadSkills,
  MIN_NAME_LENGTH,
  type Skill,
} from '../src/index.js';
import { skillMd, tempDir, writeTree } from './helpers/fixtures.js';
import { makeSkill } from './helpers/skills.js';

// A small deterministic generator, so a failure names a case that reproduces.
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const word = (length: number) =>
    Array.from({ length }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'.charAt(int(0, 35))).join('');
  /** A kebab-case name of about `length` chars, never starting or ending with `-`. */
  const name = (length: number) => {
    const words: string[] = [];
    let total = 0;
    while (total < length) {
      const w = word(Math.max(1, Math.min(int(2, 9), length - total)));
      words.push(w);
      total += w.length + 1;
    }
    return words.join('-');
  };
  return { int, name };
}

function randomSkills(seed: number): Skill[] {
  const g = generator(seed);
  const skills: Skill[] = [];
  const used = new Set<string>();
  for (let i = 0; i < 6; i++) {
    const skill = g.name([1, 8, 30, 64, 80][g.int(0, 4)] ?? 8);
    if (used.has(skill)) continue;
    used.add(skill);
    const paths = new Set<string>();
    for (let j = g.int(0, 5); j > 0; j--) {
      const dir = ['scripts/', 'references/', 'assets/', 'scripts/lib/', ''][g.int(0, 4)] ?? '';
      paths.add(`${dir}${g.name(g.int(1, 70))}.${['py', 'md', 'sh'][g.int(0, 2)]}`);
    }
    skills.push(makeSkill(skill, [...paths]));
  }
  return skills;
}

/** True when `name` is `skill_` + a non-empty head of `sname` + `_role_` + a non-empty tail of `sfile` (+ hash). */
function carriesFileRole(name: string, entry: CatalogSkill, role: string, sfile: string): boolean {
  const rest = name.slice('skill_'.length);
  for (let k = entry.sname.length; k >= 1; k--) {
    const start = `${entry.sname.slice(0, k)}_${role}_`;
    if (!rest.startsWith(start)) continue;
    const file = rest.slice(start.length);
    if (file === sfile) return true;
    const hashed = /^(.+)_[0-9a-f]{6}$/.exec(file);
    if (hashed?.[1] !== undefined && sfile.endsWith(hashed[1])) return true;
  }
  return false;
}

function checkInvariants(catalog: Catalog, maxLength: number): void {
  const pattern = new RegExp(`^[a-z0-9_-]{1,${maxLength}}$`);
  const names: string[] = [];
  for (const entry of catalog.skills.values()) {
    const info = entry.getInfoTool.name;
    names.push(info);
    expect(info).toMatch(pattern);
    // A get_info keeps `skill_`, some of the skill name, and `_get_info` at the end; if renamed, a hash before it.
    const infoMatch = /^skill_(.+?)(?:_[0-9a-f]{6})?_get_info$/.exec(info);
    expect(infoMatch, info).not.toBeNull();
    expect(entry.sname.startsWith(infoMatch?.[1] ?? '\0'), info).toBe(true);
    for (const file of entry.skill.files) {
      const tools = entry.toolNames.get(file.path);
      const sfile = fileToolSuffix(file.path);
      const byRole: Array<[string, string | undefined]> = [
        ['run', tools?.run],
        ['run_async', tools?.runAsync],
        ['read', tools?.read],
      ];
      for (const [role, name] of byRole) {
        if (name === undefined) continue;
        names.push(name);
        expect(name).toMatch(pattern);
        expect(carriesFileRole(name, entry, role, sfile), `${name} as ${role} of ${file.path}`).toBe(true);
        if (name.length < `skill_${entry.sname}_${role}_${sfile}`.length)
          expect(name).toMatch(/_[0-9a-f]{6}$/);
      }
    }
  }
  expect(new Set(names).size).toBe(names.length);
  for (const name of names) expect(catalog.resolve(name)).toBeDefined();
}

describe('createCatalog: shortened names keep their role', () => {
  it('shortens the get_info and run tools of a long skill name so that they still read as such', () => {
    const skill = makeSkill('very-long-skill-name-that-goes-on-and-on-and-on-and-on', [
      'scripts/build.sh',
      'references/guide.md',
    ]);
    const catalog = createCatalog([skill], { maxNameLength: 48, asyncEnabled: true, maxTimeoutSeconds: 60 });
    const entry = catalog.skills.get(skill.name);
    expect(entry?.getInfoTool.name).toMatch(/^skill_very-long-skill-name-that_[0-9a-f]{6}_get_info$/);
    expect(entry?.toolNames.get('scripts/build.sh')).toEqual({
      run: expect.stringMatching(/^skill_very-long-skill-name_run_build_sh_[0-9a-f]{6}$/),
      runAsync: expect.stringMatching(/^skill_very-long-skill_run_async_build_sh_[0-9a-f]{6}$/),
      read: expect.stringMatching(/^skill_very-long-skill-name_read_build_sh_[0-9a-f]{6}$/),
    });
    const truncated = catalog.problems.filter((p) => p.code === 'TOOL_NAME_TRUNCATED');
    expect(truncated.map((p) => p.field)).toContain(entry?.getInfoTool.name);
  });

  it('shortens a long file name from its start, keeping its name and extension', () => {
    const path = 'references/conventions/conventional-commits-and-semantic-versioning.md';
    const catalog = createCatalog([makeSkill('notes', [path])], {
      maxNameLength: 48,
      asyncEnabled: false,
      maxTimeoutSeconds: 60,
    });
    expect(catalog.skills.get('notes')?.toolNames.get(path)?.read).toMatch(
      /^skill_notes_read_semantic-versioning_md_[0-9a-f]{6}$/,
    );
  });

  it('gives the same long name the same short name in every build', () => {
    const build = () =>
      createCatalog([makeSkill('a'.repeat(64), ['scripts/x.py'])], {
        maxNameLength: MIN_NAME_LENGTH,
        asyncEnabled: true,
        maxTimeoutSeconds: 60,
      });
    const names = (c: Catalog) =>
      [...c.skills.values()].flatMap((e) => [e.getInfoTool.name, ...e.tools.map((t) => t.name)]);
    expect(names(build())).toEqual(names(build()));
  });

  it('tells two long skills with the same start apart by their hash', () => {
    const common = 'shared-prefix-of-two-long-skill-names-that-differ';
    const catalog = createCatalog([makeSkill(`${common}-only-here`), makeSkill(`${common}-at-the-end`)], {
      maxNameLength: 40,
      asyncEnabled: false,
      maxTimeoutSeconds: 60,
    });
    const [first, second] = [...catalog.skills.values()].map((e) => e.getInfoTool.name);
    expect(first).not.toBe(second);
    expect(first?.slice(0, -'_get_info'.length - 7)).toBe(second?.slice(0, -'_get_info'.length - 7));
  });

  // Property-style: every length a config allows, many generated catalogs.
  for (let maxLength = MIN_NAME_LENGTH; maxLength <= 64; maxLength++) {
    it(`keeps every invariant with max_name_length ${maxLength}`, () => {
      for (let seed = 1; seed <= 12; seed++) {
        const skills = randomSkills(seed * 1000 + maxLength);
        const catalog = createCatalog(skills, {
          maxNameLength: maxLength,
          asyncEnabled: true,
          maxTimeoutSeconds: 60,
        });
        checkInvariants(catalog, maxLength);
      }
    });
  }

  it('keeps every invariant for skill names and files of every length at the smallest limit', () => {
    for (let skillLength = 1; skillLength <= 70; skillLength += 3) {
      const skills = [1, 10, 40, 90].map((fileLength, i) =>
        makeSkill(`${'s'.repeat(skillLength)}${i}`, [
          `scripts/${'f'.repeat(fileLength)}.py`,
          `${'r'.repeat(fileLength)}.md`,
        ]),
      );
      const catalog = createCatalog(skills, {
        maxNameLength: MIN_NAME_LENGTH,
        asyncEnabled: true,
        maxTimeoutSeconds: 60,
      });
      checkInvariants(catalog, MIN_NAME_LENGTH);
    }
  });
});

describe('createCatalog: files under scripts/ that cannot run', () => {
  it('gives them read tools only, in every listing and in the get_info text', async () => {
    const root = await tempDir();
    await writeTree(root, {
      'tool/SKILL.md': skillMd('tool'),
      'tool/scripts/go.py': 'print(1)',
      'tool/scripts/requirements.txt': 'requests==2.0',
    });
    const { skills, problems } = await loadSkills({
      roots: [root],
      validation: 'lenient',
      interpreterExtensions: ['.py'],
    });
    const catalog = createCatalog(skills, {
      maxNameLength: 48,
      asyncEnabled: true,
      maxTimeoutSeconds: 60,
      problems,
    });
    const entry = catalog.skills.get('tool');
    expect(entry?.toolNames.get('scripts/requirements.txt')).toEqual({
      read: 'skill_tool_read_requirements_txt',
    });
    expect(entry?.toolNames.get('scripts/go.py')).toEqual({
      run: 'skill_tool_run_go_py',
      runAsync: 'skill_tool_run_async_go_py',
      read: 'skill_tool_read_go_py',
    });
    expect(entry?.getInfoText).not.toContain('skill_tool_run_requirements_txt');
    expect(entry?.getInfoText).not.toContain('skill_tool_run_async_requirements_txt');
    expect(catalog.problems.map((p) => p.code)).toEqual(['SCRIPT_NOT_RUNNABLE']);
  });
});
