import { describe, expect, it } from 'vitest';
import {
  type Catalog,
  type CatalogOptions,
  createCatalog,
  loadSkills,
  MIN_NAME_LENGTH,
  type Skill,
  SkillsError,
  type ToolView,
} from '../src/index.js';
import { fixture } from './helpers/fixtures.js';
import { makeSkill } from './helpers/skills.js';

const OPTIONS: CatalogOptions = { maxNameLength: 48, asyncEnabled: false, maxTimeoutSeconds: 300 };
const ASYNC: CatalogOptions = { ...OPTIONS, asyncEnabled: true };

/** Every tool name a catalog defines, whatever the view. */
function allNames(catalog: Catalog): string[] {
  const eager = catalog.listTools({ disclosure: 'eager', unlocked: new Set() }).map((t) => t.name);
  const universal = catalog.listTools({ disclosure: 'universal', unlocked: new Set() }).map((t) => t.name);
  return [...new Set([...eager, ...universal])];
}

const skillToolNames = (catalog: Catalog) =>
  [...catalog.skills.values()].flatMap((e) => [e.getInfoTool.name, ...e.tools.map((t) => t.name)]);

const codesOf = (catalog: Catalog) => catalog.problems.map((p) => p.code);

describe('createCatalog: names', () => {
  it('names every tool of a skill skill_<name>_<role>_<file> (README, "Writing a skill")', () => {
    const pdf = makeSkill('pdf', ['scripts/build.sh', 'references/api/v2.md', 'assets/logo.png']);
    const catalog = createCatalog([pdf], ASYNC);
    expect(skillToolNames(catalog)).toEqual([
      'skill_pdf_get_info',
      'skill_pdf_read_logo_png',
      'skill_pdf_read_api_v2_md',
      'skill_pdf_run_build_sh',
      'skill_pdf_run_async_build_sh',
      'skill_pdf_read_build_sh',
    ]);
    expect(catalog.skills.get('pdf')?.toolNames.get('scripts/build.sh')).toEqual({
      run: 'skill_pdf_run_build_sh',
      runAsync: 'skill_pdf_run_async_build_sh',
      read: 'skill_pdf_read_build_sh',
    });
    expect(catalog.skills.get('pdf')?.toolNames.get('assets/logo.png')).toEqual({
      read: 'skill_pdf_read_logo_png',
    });
    expect(catalog.problems).toEqual([]);
  });

  it('has no run_async tools when async is disabled', () => {
    const catalog = createCatalog([makeSkill('pdf', ['scripts/build.sh'])], OPTIONS);
    expect(skillToolNames(catalog)).toEqual([
      'skill_pdf_get_info',
      'skill_pdf_run_build_sh',
      'skill_pdf_read_build_sh',
    ]);
    expect(catalog.skills.get('pdf')?.toolNames.get('scripts/build.sh')).toEqual({
      run: 'skill_pdf_run_build_sh',
      read: 'skill_pdf_read_build_sh',
    });
  });

  it('resolves the clashes of the clashes fixture: first by path keeps the plain name', async () => {
    const { skills, problems } = await loadSkills({ roots: [fixture('clashes')], validation: 'lenient' });
    const catalog = createCatalog(skills, { ...OPTIONS, problems });
    const names = skillToolNames(catalog);
    expect(names.slice(0, 4)).toEqual([
      'skill_a_get_info',
      'skill_a_read_get_info',
      'skill_a_run_x_sh',
      'skill_a_read_x_sh',
    ]);
    expect(names[4]).toMatch(/^skill_a_read_[0-9a-f]{6}_get_info$/);
    expect(names.slice(5, 8)).toEqual([
      'skill_pdf_tools_get_info',
      'skill_pdf_tools_run_run_sh',
      'skill_pdf_tools_read_run_sh',
    ]);
    const sname = catalog.skills.get('pdf_tools')?.sname ?? '';
    expect(sname).toMatch(/^pdf_tools_[0-9a-f]{6}$/);
    expect(names.slice(8)).toEqual([
      `skill_${sname}_get_info`,
      `skill_${sname}_run_run_sh`,
      `skill_${sname}_read_run_sh`,
    ]);
    const clashes = catalog.problems.filter((p) => p.code === 'TOOL_NAME_CLASH');
    expect(clashes.map((p) => [p.skill, p.severity, p.file])).toEqual([
      ['a_read', 'warning', fixture('clashes', 'a_read', 'SKILL.md')],
      ['pdf_tools', 'warning', fixture('clashes', 'pdf_tools', 'SKILL.md')],
    ]);
    expect(new Set(names).size).toBe(names.length);
  });

  it('keeps the plain name for whoever comes first, whatever the order', () => {
    const a = makeSkill('a', ['get_info']);
    const aRead = makeSkill('a_read');
    const forward = createCatalog([a, aRead], OPTIONS);
    expect(forward.skills.get('a')?.toolNames.get('get_info')?.read).toBe('skill_a_read_get_info');
    expect(forward.skills.get('a_read')?.getInfoTool.name).not.toBe('skill_a_read_get_info');
    const backward = createCatalog([aRead, a], OPTIONS);
    expect(backward.skills.get('a_read')?.getInfoTool.name).toBe('skill_a_read_get_info');
    expect(backward.skills.get('a')?.toolNames.get('get_info')?.read).toMatch(
      /^skill_a_read_get_info_[0-9a-f]{6}$/,
    );
    expect(codesOf(backward)).toEqual(['TOOL_NAME_CLASH']);
  });

  it('gives files that sanitize alike distinct names: build.sh vs build_sh', async () => {
    const { skills } = await loadSkills({ roots: [fixture('broken')], validation: 'lenient' });
    const catalog = createCatalog(skills, OPTIONS);
    const names = catalog.skills.get('tool-clash')?.toolNames;
    expect(names?.get('scripts/build.sh')).toEqual({
      run: 'skill_tool-clash_run_build_sh',
      read: 'skill_tool-clash_read_build_sh',
    });
    expect(names?.get('scripts/build_sh')?.run).toMatch(/^skill_tool-clash_run_build_sh_[0-9a-f]{6}$/);
    expect(names?.get('scripts/build_sh')?.read).toMatch(/^skill_tool-clash_read_build_sh_[0-9a-f]{6}$/);
    const clashes = catalog.problems.filter((p) => p.code === 'TOOL_NAME_CLASH');
    expect(clashes.map((p) => p.file)).toEqual([
      fixture('broken', 'tool-clash', 'scripts', 'build_sh'),
      fixture('broken', 'tool-clash', 'scripts', 'build_sh'),
    ]);
    expect(clashes.map((p) => p.field)).toEqual([
      names?.get('scripts/build_sh')?.run,
      names?.get('scripts/build_sh')?.read,
    ]);
  });

  it('gives skills that sanitize alike distinct prefixes, first one plain', () => {
    const catalog = createCatalog(
      [makeSkill('PDF', ['x.md']), makeSkill('pdf', ['x.md']), makeSkill('p.d.f')],
      OPTIONS,
    );
    const snames = [...catalog.skills.values()].map((e) => e.sname);
    expect(snames[0]).toBe('pdf');
    expect(snames[1]).toMatch(/^pdf_[0-9a-f]{6}$/);
    expect(snames[2]).toBe('p_d_f');
    expect(catalog.skills.get('pdf')?.toolNames.get('x.md')?.read).toBe(`skill_${snames[1]}_read_x_md`);
    expect(codesOf(catalog)).toEqual(['TOOL_NAME_CLASH']);
  });

  it('names skills with no usable character after a hash, distinct per skill', () => {
    const catalog = createCatalog([makeSkill('数据'), makeSkill('文件')], OPTIONS);
    const [first, second] = [...catalog.skills.values()].map((e) => e.getInfoTool.name);
    expect(first).toMatch(/^skill_[0-9a-f]{6}_get_info$/);
    expect(second).toMatch(/^skill_[0-9a-f]{6}_get_info$/);
    expect(first).not.toBe(second);
  });

  it('ignores and reports a second skill of the same name', () => {
    const first = makeSkill('pdf', [], 'first');
    const second = { ...makeSkill('pdf', [], 'second'), dir: '/other/pdf' };
    const catalog = createCatalog([first, second], OPTIONS);
    expect(catalog.skills.get('pdf')?.skill.description).toBe('first');
    expect(catalog.problems).toEqual([
      expect.objectContaining({ code: 'NAME_CLASH', file: '/other/pdf/SKILL.md' }),
    ]);
  });

  describe.each([MIN_NAME_LENGTH, 40, 48, 64])('with maxNameLength %i', (maxNameLength) => {
    const skills: Skill[] = [
      makeSkill('a-skill-with-a-really-quite-long-name-indeed', [
        'scripts/run-the-whole-pipeline-now.py',
        'x.md',
      ]),
      makeSkill('short', [
        'references/a-very-long-common-prefix-document-part-one.md',
        'references/a-very-long-common-prefix-document-part-two.md',
        'scripts/go.sh',
      ]),
      makeSkill('short-too', ['scripts/go.sh']),
    ];
    const catalog = createCatalog(skills, { ...ASYNC, maxNameLength });
    const names = allNames(catalog);

    it('keeps every name within the limit, in the allowed alphabet, and unique', () => {
      for (const name of names) expect(name).toMatch(new RegExp(`^[a-z0-9_-]{1,${maxNameLength}}$`));
      expect(new Set(names).size).toBe(names.length);
    });

    it('shortens exactly the names that are too long, with a hash, and reports each', () => {
      const truncated = catalog.problems.filter((p) => p.code === 'TOOL_NAME_TRUNCATED');
      const plain = skillToolNames(catalog).filter((n) => !truncated.some((p) => p.field === n));
      for (const p of truncated) expect(p.field).toMatch(/_[0-9a-f]{6}(?:_get_info)?$/);
      for (const p of truncated) expect(p.field?.length).toBeLessThanOrEqual(maxNameLength);
      expect(plain.every((n) => n.length <= maxNameLength)).toBe(true);
      if (maxNameLength < 64) expect(truncated.length).toBeGreaterThan(0);
    });

    it('resolves every name to its own target', () => {
      for (const entry of catalog.skills.values()) {
        expect(catalog.resolve(entry.getInfoTool.name)).toEqual({
          kind: 'get_info',
          skill: entry.skill.name,
        });
        for (const [path, toolNames] of entry.toolNames) {
          const file = entry.skill.files.find((f) => f.path === path);
          expect(catalog.resolve(toolNames.read)).toEqual({ kind: 'read', skill: entry.skill.name, file });
          if (toolNames.run !== undefined)
            expect(catalog.resolve(toolNames.run)).toMatchObject({ kind: 'run', file });
          if (toolNames.runAsync !== undefined) {
            expect(catalog.resolve(toolNames.runAsync)).toMatchObject({ kind: 'run_async', file });
          }
        }
      }
    });
  });

  it('resolves a clash between a truncated name and a plain name that equals it', () => {
    const longPath = 'references/an-extremely-long-reference-file-name.md';
    const probe = createCatalog([makeSkill('x', [longPath])], { ...OPTIONS, maxNameLength: 32 });
    const truncated = probe.skills.get('x')?.toolNames.get(longPath)?.read ?? '';
    expect(truncated.length).toBeLessThanOrEqual(32);
    // A file whose plain read tool name is exactly that truncated name, sorting before the long one.
    const lookalike = truncated.slice('skill_x_read_'.length);
    const catalog = createCatalog([makeSkill('x', [longPath, lookalike])], { ...OPTIONS, maxNameLength: 32 });
    const names = catalog.skills.get('x')?.toolNames;
    expect(names?.get(lookalike)?.read).toBe(truncated);
    expect(names?.get(longPath)?.read).not.toBe(truncated);
    expect(names?.get(longPath)?.read).toMatch(/^[a-z0-9_-]{1,32}$/);
    expect(codesOf(catalog)).toEqual(['TOOL_NAME_TRUNCATED', 'TOOL_NAME_CLASH']);
  });

  it('is deterministic: two builds from two loads give the same names, definitions and problems', async () => {
    const build = async () => {
      const { skills, problems } = await loadSkills({
        roots: [fixture('clashes'), fixture('broken'), fixture('good')],
        validation: 'lenient',
      });
      return createCatalog(skills, { ...ASYNC, maxNameLength: 32, problems });
    };
    const [first, second] = [await build(), await build()];
    const view: ToolView = { disclosure: 'eager', unlocked: new Set() };
    expect(JSON.stringify(second.listTools(view))).toBe(JSON.stringify(first.listTools(view)));
    expect(second.problems).toEqual(first.problems);
  });

  it('carries the loading problems first', () => {
    const loading = [
      { severity: 'error' as const, code: 'ROOT_UNREADABLE' as const, file: '/nope', reason: 'gone' },
    ];
    const catalog = createCatalog([makeSkill('PDF'), makeSkill('pdf')], { ...OPTIONS, problems: loading });
    expect(codesOf(catalog)).toEqual(['ROOT_UNREADABLE', 'TOOL_NAME_CLASH']);
  });

  it.each([
    [{ maxNameLength: MIN_NAME_LENGTH - 1 }],
    [{ maxNameLength: 40.5 }],
    [{ maxTimeoutSeconds: 0 }],
    [{ maxTimeoutSeconds: Number.NaN }],
  ])('refuses invalid options %j', (override) => {
    const thrown = (() => {
      try {
        createCatalog([], { ...OPTIONS, ...override });
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(SkillsError);
    expect(thrown).toMatchObject({ code: 'OPTION_INVALID' });
  });
});
