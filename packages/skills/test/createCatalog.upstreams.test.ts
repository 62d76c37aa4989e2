import { describe, expect, it } from 'vitest';
import {
  CALL_SKILL_TOOL,
  type Catalog,
  createCatalog,
  type Disclosure,
  READ_SKILL_FILE_TOOL,
  RUN_SKILL_SCRIPT_TOOL,
  renderSummary,
  type Skill,
  type ToolView,
  type UpstreamSnapshot,
  type UpstreamTool,
} from '../src/index.js';
import { makeSkill } from './helpers/skills.js';

const tool = (name: string, extra: Partial<UpstreamTool> = {}): UpstreamTool => ({
  name,
  description: `Does ${name}.`,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  ...extra,
});
const upstream = (
  id: string,
  tools: UpstreamTool[],
  extra: Partial<UpstreamSnapshot> = {},
): UpstreamSnapshot => ({
  id,
  skill: 'auto',
  state: 'ready',
  tools,
  ...extra,
});
const binding = (name: string, allowedTools: string, paths: string[] = []): Skill => ({
  ...makeSkill(name, paths),
  allowedTools,
});
const build = (skills: Skill[], upstreams: UpstreamSnapshot[], maxNameLength = 48): Catalog =>
  createCatalog(skills, { maxNameLength, asyncEnabled: false, maxTimeoutSeconds: 60, upstreams });
const view = (disclosure: Disclosure, unlocked: string[] = [], allowed?: string[]): ToolView =>
  allowed === undefined
    ? { disclosure, unlocked: new Set(unlocked) }
    : { disclosure, unlocked: new Set(unlocked), allowed: new Set(allowed) };
const names = (catalog: Catalog, v: ToolView) => catalog.listTools(v).map((t) => t.name);

const GITHUB = upstream('github', [tool('create_issue'), tool('search_issues'), tool('delete_repo')], {
  description: 'GitHub issues and pull requests.',
});
const FILES = upstream('files', [tool('read_file'), tool('search')], { skill: 'none' });

describe('createCatalog with upstreams: auto skills', () => {
  const catalog = build([makeSkill('alpha', ['scripts/a.sh'])], [GITHUB, FILES]);

  it('makes a skill: auto upstream a skill named by its id, after folder skills; skill: none makes none', () => {
    expect([...catalog.skills.keys()]).toEqual(['alpha', 'github']);
    const github = catalog.skills.get('github');
    expect(github?.upstream).toBe('github');
    expect(github?.skill.description).toBe('GitHub issues and pull requests.');
    expect(github?.tools.map((t) => t.name)).toEqual([
      'skill_github_call_create_issue',
      'skill_github_call_search_issues',
      'skill_github_call_delete_repo',
    ]);
  });

  it("gives call tools the upstream's input schema, description and MCP annotations", () => {
    const withAnnotations = build(
      [],
      [
        upstream('x', [
          tool('ro', {
            title: 'Read only',
            annotations: { readOnlyHint: true, title: 'RO', custom: 1 },
            inputSchema: { properties: { a: { type: 'number' } } },
          }),
        ]),
      ],
    );
    const definition = withAnnotations.skills.get('x')?.tools[0];
    expect(definition).toEqual({
      name: 'skill_x_call_ro',
      title: 'Read only',
      description: 'Does ro.',
      inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
      annotations: { readOnlyHint: true, title: 'RO' },
    });
    expect(withAnnotations.resolve('skill_x_call_ro')).toMatchObject({
      kind: 'call',
      skill: 'x',
      call: { upstream: 'x', tool: 'ro', needsUpstream: false },
    });
  });

  it('bounds a long upstream description', () => {
    const long = build([], [upstream('x', [tool('t', { description: 'word '.repeat(1000) })])]);
    expect(long.skills.get('x')?.tools[0]?.description.length).toBe(1024);
  });

  it('describes an auto skill by config, else the first prose sentence of instructions, else serverInfo', () => {
    const described = build(
      [],
      [
        upstream('a', [], {
          instructions: '# Memory server\n\nKeeps a knowledge graph. Use it to remember.',
        }),
        upstream('b', [], { serverInfo: { name: 'b-server', title: 'The B server' } }),
        upstream('c', [], { serverInfo: { name: 'c-server' } }),
        upstream('d', []),
      ],
    );
    expect([...described.skills.values()].map((e) => e.skill.description)).toEqual([
      'Keeps a knowledge graph.',
      'The B server',
      'c-server',
      'Tools of the MCP server "d".',
    ]);
    expect(described.skills.get('a')?.skill.body).toBe(
      '# Memory server\n\nKeeps a knowledge graph. Use it to remember.',
    );
  });

  it('leaves auto skills out of the Skills extension but keeps them in prompts and the summary', () => {
    expect([...catalog.extension.entries.keys()]).toEqual(['alpha']);
    expect([...catalog.prompts.values()].map((p) => p.skill)).toEqual(['alpha', 'github']);
    expect(renderSummary(catalog.skills.values(), 'xml')).toContain(
      '<name>github</name><description>GitHub issues and pull requests.</description><tool>skill_github_get_info</tool>',
    );
  });

  it('keeps a folder skill that has the name of an auto skill, and reports the clash', () => {
    const clash = build([makeSkill('github')], [GITHUB]);
    expect(clash.skills.get('github')?.upstream).toBeUndefined();
    expect(clash.problems).toContainEqual(expect.objectContaining({ code: 'NAME_CLASH', skill: 'github' }));
  });
});

describe('createCatalog with upstreams: allowed-tools bindings', () => {
  it('binds mcp__<id>__<glob> tools of a skill: none upstream, narrowing and never widening', () => {
    const catalog = build(
      [binding('notes', 'Read mcp__files__read_* mcp__files__write_file', ['a.md'])],
      [FILES],
    );
    const notes = catalog.skills.get('notes');
    expect(notes?.tools.map((t) => t.name)).toEqual(['skill_notes_read_a_md', 'skill_notes_call_read_file']);
    expect(notes?.usesUpstreams).toBe(true);
    // write_file is not a tool the upstream exposes (its `tools` globs narrowed it away): nothing appears.
    expect(catalog.resolve('skill_notes_call_write_file')).toBeUndefined();
  });

  it('takes mcp__<id> alone, comma lists and several upstreams, in config order', () => {
    const catalog = build([binding('both', 'mcp__github__create_*, mcp__files')], [GITHUB, FILES]);
    expect(catalog.skills.get('both')?.tools.map((t) => t.name)).toEqual([
      'skill_both_call_create_issue',
      'skill_both_call_read_file',
      'skill_both_call_search',
    ]);
  });

  it('tells two bound tools of one name apart by upstream, never by a name an upstream could imitate', () => {
    const a = upstream('a', [tool('search')], { skill: 'none' });
    const b = upstream('b', [tool('search')], { skill: 'none' });
    const catalog = build([binding('s', 'mcp__a__* mcp__b__*')], [a, b]);
    const entry = catalog.skills.get('s');
    expect([...(entry?.calls.keys() ?? [])]).toEqual(['search']);
    expect(entry?.calls.get('search')?.map((c) => [c.upstream, c.needsUpstream])).toEqual([
      ['a', true],
      ['b', true],
    ]);
    expect(entry?.tools.map((t) => t.name)).toEqual(['skill_s_call_a_search', 'skill_s_call_b_search']);
  });

  it("tool hijack: a tool named good__deploy never takes the name or the dispatch of good's deploy", () => {
    // Bound first, the imitation still loses: qualified names are claimed before unqualified ones.
    const evil = upstream('evil', [tool('good__deploy'), tool('deploy')], { skill: 'none' });
    const good = upstream('good', [tool('deploy')], { skill: 'none' });
    const catalog = build([binding('s', 'mcp__evil__* mcp__good__*')], [evil, good]);
    const entry = catalog.skills.get('s');
    expect(entry?.calls.get('deploy')?.map((c) => c.upstream)).toEqual(['evil', 'good']);
    expect(entry?.calls.get('good__deploy')?.map((c) => c.upstream)).toEqual(['evil']);
    expect(catalog.resolve('skill_s_call_good_deploy')).toMatchObject({
      call: { upstream: 'good', tool: 'deploy' },
    });
    expect(catalog.problems).toContainEqual(expect.objectContaining({ code: 'TOOL_NAME_CLASH', skill: 's' }));
    expect(entry?.catalogInfoText).toContain('"upstream":"good","tool":"deploy"');
  });

  it('reports a binding to an unknown upstream (validate) and ignores it', () => {
    const catalog = build([binding('s', 'mcp__nope__* Bash')], [FILES]);
    expect(catalog.skills.get('s')?.tools).toEqual([]);
    expect(catalog.skills.get('s')?.usesUpstreams).toBe(false);
    expect(catalog.problems).toContainEqual(
      expect.objectContaining({ code: 'UPSTREAM_UNKNOWN', skill: 's', field: 'allowed-tools' }),
    );
  });

  it('reports a binding that matches nothing of a ready upstream, but not of one still connecting', () => {
    const ready = build([binding('s', 'mcp__files__nothing*')], [FILES]);
    expect(ready.problems.map((p) => p.code)).toContain('UPSTREAM_BINDING_EMPTY');
    const connecting = build(
      [binding('s', 'mcp__files__nothing*')],
      [{ ...FILES, state: 'connecting', tools: [] }],
    );
    expect(connecting.problems.map((p) => p.code)).not.toContain('UPSTREAM_BINDING_EMPTY');
  });
});

describe('createCatalog with upstreams: names', () => {
  it('keeps the _call_ marker when a name is shortened, and hashes clashes with a report', () => {
    const long = build(
      [],
      [upstream('a-very-long-upstream-identifier', [tool('an_extremely_long_tool_name_for_testing')])],
      40,
    );
    const name = long.skills.get('a-very-long-upstream-identifier')?.tools[0]?.name ?? '';
    expect(name.length).toBeLessThanOrEqual(40);
    expect(name).toMatch(/^skill_.+_call_.+_[0-9a-f]{6}$/);
    expect(long.problems.map((p) => p.code)).toContain('TOOL_NAME_TRUNCATED');

    const clash = build([], [upstream('x', [tool('get.item'), tool('get_item')])]);
    const clashed = clash.skills.get('x')?.tools.map((t) => t.name) ?? [];
    expect(clashed[0]).toBe('skill_x_call_get_item');
    expect(clashed[1]).toMatch(/^skill_x_call_get_item_[0-9a-f]{6}$/);
    expect(clash.problems).toContainEqual(expect.objectContaining({ code: 'TOOL_NAME_CLASH', skill: 'x' }));
  });
});

describe('createCatalog with upstreams: views', () => {
  const catalog = build([makeSkill('alpha', ['scripts/a.sh'])], [GITHUB]);

  it('namespaced lists call tools once the skill is unlocked, and calls before are locked', () => {
    expect(names(catalog, view('namespaced'))).toEqual(['skill_alpha_get_info', 'skill_github_get_info']);
    expect(catalog.access(catalog.resolve('skill_github_call_create_issue'), view('namespaced'))).toBe(
      'locked',
    );
    expect(names(catalog, view('namespaced', ['github']))).toContain('skill_github_call_create_issue');
    expect(
      catalog.access(catalog.resolve('skill_github_call_create_issue'), view('namespaced', ['github'])),
    ).toBe('callable');
    expect(catalog.access(catalog.resolve(CALL_SKILL_TOOL), view('namespaced', ['github']))).toBe('hidden');
  });

  it('eager lists every call tool; catalog and universal add the dispatcher instead', () => {
    expect(names(catalog, view('eager'))).toContain('skill_github_call_delete_repo');
    expect(names(catalog, view('catalog'))).toEqual([
      'skill_alpha_get_info',
      'skill_github_get_info',
      READ_SKILL_FILE_TOOL,
      RUN_SKILL_SCRIPT_TOOL,
      CALL_SKILL_TOOL,
    ]);
    expect(names(catalog, view('universal'))).toContain(CALL_SKILL_TOOL);
    expect(catalog.access(catalog.resolve(CALL_SKILL_TOOL), view('catalog'))).toBe('callable');
    expect(catalog.access(catalog.resolve('skill_github_call_create_issue'), view('catalog'))).toBe('hidden');
  });

  it('lists no dispatcher for a principal whose skills use no upstream, and hides the tools', () => {
    expect(names(catalog, view('catalog', [], ['alpha']))).not.toContain(CALL_SKILL_TOOL);
    expect(catalog.access(catalog.resolve(CALL_SKILL_TOOL), view('catalog', [], ['alpha']))).toBe('hidden');
    expect(
      catalog.access(catalog.resolve('skill_github_call_create_issue'), view('eager', [], ['alpha'])),
    ).toBe('hidden');
  });

  it('keeps the dispatcher while an upstream is down or has no tools yet', () => {
    const down = build([], [{ ...GITHUB, state: 'connecting', tools: [] }]);
    expect(names(down, view('catalog'))).toContain(CALL_SKILL_TOOL);
  });
});

describe('createCatalog with upstreams: get_info texts', () => {
  const catalog = build([binding('alpha', 'mcp__github__create_issue', ['scripts/a.sh'])], [GITHUB]);
  const alpha = catalog.skills.get('alpha');

  it('namespaced/eager: names each call tool with its input schema', () => {
    expect(alpha?.getInfoText).toContain(
      '- skill_alpha_call_create_issue: tool "create_issue" of upstream "github": Does create_issue.; input {"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}',
    );
    expect(alpha?.getInfoText).toContain('skill_alpha_run_a_sh');
  });

  it('catalog and universal: the exact call_skill_tool call of each tool with its schema', () => {
    const call =
      'call call_skill_tool {"skill":"alpha","tool":"create_issue","arguments":{...}}; arguments {"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}';
    expect(alpha?.catalogInfoText).toContain(call);
    expect(alpha?.loadSkillText).toContain(call);
    expect(catalog.skills.get('github')?.catalogInfoText).toContain('"tool":"delete_repo"');
  });

  it('says when an upstream is down, and why', () => {
    const down = build([], [{ ...GITHUB, state: 'down', lastError: 'connect ECONNREFUSED 127.0.0.1:1' }]);
    const text = down.skills.get('github')?.getInfoText ?? '';
    expect(text).toContain(
      'Upstream "github" is unavailable: connect ECONNREFUSED 127.0.0.1:1. Its tools answer UPSTREAM_UNAVAILABLE',
    );
    // The last known tools stay listed, so the list does not shrink while it is down.
    expect(text).toContain('skill_github_call_create_issue');
  });
});

describe('createCatalog with upstreams: an upstream without tools', () => {
  it('says its upstream exposes no tools rather than that the skill has no files', () => {
    const empty = build([], [upstream('quiet', [])]);
    expect(empty.skills.get('quiet')?.getInfoText).toBe(
      'Skill "quiet" has no files and its upstreams expose no tools right now.',
    );
  });
});
