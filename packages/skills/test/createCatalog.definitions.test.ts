import { describe, expect, it } from 'vitest';
import {
  ASYNC_CANCEL_TOOL,
  ASYNC_STATUS_TOOL,
  type Catalog,
  createCatalog,
  loadSkills,
  RUN_SKILL_SCRIPT_TOOL,
  type ToolDefinition,
} from '../src/index.js';
import { fixture } from './helpers/fixtures.js';
import { makeSkill } from './helpers/skills.js';

const EMPTY = { type: 'object' };

async function alphaCatalog(asyncEnabled: boolean): Promise<Catalog> {
  const { skills } = await loadSkills({ roots: [fixture('good')], validation: 'strict' });
  return createCatalog(skills, { maxNameLength: 48, asyncEnabled, maxTimeoutSeconds: 120 });
}

const byName = (tools: readonly ToolDefinition[], name: string) => tools.find((t) => t.name === name);

describe('createCatalog: tool definitions and texts', () => {
  it('describes get_info by the skill description exactly and nothing more', async () => {
    const alpha = (await alphaCatalog(false)).skills.get('alpha');
    expect(alpha?.getInfoTool).toEqual({
      name: 'skill_alpha_get_info',
      description: 'Builds alpha reports from CSV files. Use when asked for an alpha report.',
      inputSchema: { type: 'object' },
    });
  });

  it('defines run, run_async and read tools with their schemas', async () => {
    const tools = (await alphaCatalog(true)).skills.get('alpha')?.tools ?? [];
    const run = byName(tools, 'skill_alpha_run_build_sh');
    expect(run?.description).toBe(
      'Run scripts/build.sh of skill "alpha". Arguments are passed as argv, never through a shell.',
    );
    expect(run?.inputSchema).toEqual({
      type: 'object',
      properties: {
        args: { type: 'array', items: { type: 'string' }, maxItems: 256, description: expect.any(String) },
        stdin: { type: 'string', description: expect.any(String) },
        timeout: { type: 'number', exclusiveMinimum: 0, maximum: 120, description: 'seconds' },
        tail: { type: 'integer', minimum: 0, maximum: 100_000, description: expect.any(String) },
      },
    });
    const runAsync = byName(tools, 'skill_alpha_run_async_build_sh');
    expect(Object.keys(runAsync?.inputSchema.properties ?? {})).toEqual(['args', 'stdin', 'timeout']);
    expect(runAsync?.description).toContain(ASYNC_STATUS_TOOL);
    const read = byName(tools, 'skill_alpha_read_logo_png');
    expect(read).toMatchObject({ inputSchema: EMPTY, annotations: { readOnlyHint: true } });
    expect(read?.description).toContain('assets/logo.png');
    expect(read?.description).toContain('image/png');
  });

  it('defines the async pair with a required job_id', async () => {
    const list = (await alphaCatalog(true)).listTools({ disclosure: 'eager', unlocked: new Set() });
    expect(byName(list, ASYNC_STATUS_TOOL)?.inputSchema).toEqual({
      type: 'object',
      properties: {
        job_id: { type: 'string', minLength: 1, maxLength: 256 },
        tail: { type: 'integer', minimum: 0, maximum: 100_000, description: expect.any(String) },
      },
      required: ['job_id'],
    });
    expect(byName(list, ASYNC_CANCEL_TOOL)?.inputSchema).toMatchObject({ required: ['job_id'] });
  });

  it('offers the async flag of run_skill_script only when async is enabled', async () => {
    const schema = async (enabled: boolean) =>
      byName(
        (await alphaCatalog(enabled)).listTools({ disclosure: 'universal', unlocked: new Set() }),
        RUN_SKILL_SCRIPT_TOOL,
      )?.inputSchema;
    expect(Object.keys((await schema(false))?.properties ?? {})).toEqual([
      'skill',
      'path',
      'args',
      'stdin',
      'timeout',
      'tail',
    ]);
    expect((await schema(true))?.properties).toHaveProperty(
      'async',
      expect.objectContaining({ type: 'boolean' }),
    );
    expect((await schema(true))?.required).toEqual(['skill', 'path']);
  });

  it('freezes every shared definition so no session can alter another’s', async () => {
    const catalog = await alphaCatalog(true);
    for (const tool of catalog.listTools({ disclosure: 'eager', unlocked: new Set() })) {
      expect(Object.isFrozen(tool)).toBe(true);
      expect(Object.isFrozen(tool.inputSchema)).toBe(true);
    }
    expect(Object.isFrozen(catalog.problems)).toBe(true);
  });

  it('get_info text gives the body, then each tool with exact name, kind, path and compact schema', async () => {
    const alpha = (await alphaCatalog(true)).skills.get('alpha');
    const text = alpha?.getInfoText ?? '';
    expect(text.startsWith('# Alpha\n\nRun `scripts/build.sh`')).toBe(true);
    expect(text).not.toContain('description:');
    for (const tool of alpha?.tools ?? []) {
      const line = text.split('\n').find((l) => l.includes(`${tool.name}:`));
      expect(line, tool.name).toContain(JSON.stringify(tool.inputSchema));
    }
    expect(text).toContain('- skill_alpha_run_build_sh: run scripts/build.sh; input {');
    expect(text).toContain('- skill_alpha_run_async_build_sh: run_async scripts/build.sh; input {');
    expect(text).toContain('- skill_alpha_read_notes_txt: read notes.txt; input {');
    expect(text).toContain(ASYNC_STATUS_TOOL);
  });

  it('get_info text of a skill without files says so', () => {
    const catalog = createCatalog([makeSkill('empty')], {
      maxNameLength: 48,
      asyncEnabled: true,
      maxTimeoutSeconds: 5,
    });
    expect(catalog.skills.get('empty')?.getInfoText).toBe('# empty\n\nSkill "empty" has no files.');
  });

  it('load_skill text gives the body, then every file with size and script flag, and how to use them', async () => {
    const alpha = (await alphaCatalog(false)).skills.get('alpha');
    const text = alpha?.loadSkillText ?? '';
    expect(text.startsWith('# Alpha')).toBe(true);
    expect(text).toContain('- scripts/build.sh (39 bytes, script)');
    expect(text).toContain('- notes.txt (37 bytes)');
    expect(text).toContain('read_skill_file {"skill":"alpha","path":"<path>"}');
    expect(text).toContain('run_skill_script {"skill":"alpha"');
    expect(text).not.toContain('async');
  });

  it('keeps the namespaced overhead per skill small (tools/list token cost)', async () => {
    const alpha = (await alphaCatalog(false)).skills.get('alpha');
    const { description: _description, ...rest } = alpha?.getInfoTool ?? { description: '' };
    // About 4 characters per token: everything but the description stays near 40 tokens (160 chars today).
    expect(JSON.stringify(rest).length).toBeLessThanOrEqual(170);
  });
});
