import { describe, expect, it } from 'vitest';
import {
  ASYNC_CANCEL_TOOL,
  ASYNC_STATUS_TOOL,
  type Catalog,
  type CatalogOptions,
  createCatalog,
  DISCLOSURES,
  type Disclosure,
  LIST_SKILL_FILES_TOOL,
  LOAD_SKILL_TOOL,
  READ_SKILL_FILE_TOOL,
  RUN_SKILL_SCRIPT_TOOL,
  type ToolView,
} from '../src/index.js';
import { makeSkill } from './helpers/skills.js';

const SKILLS = [
  makeSkill('alpha', ['scripts/a.sh', 'notes.md']),
  makeSkill('beta', ['references/b.md']),
  makeSkill('gamma', ['scripts/g.py']),
];
const build = (asyncEnabled: boolean): Catalog =>
  createCatalog(SKILLS, { maxNameLength: 48, asyncEnabled, maxTimeoutSeconds: 60 } satisfies CatalogOptions);

const UNIVERSAL = [LOAD_SKILL_TOOL, LIST_SKILL_FILES_TOOL, READ_SKILL_FILE_TOOL, RUN_SKILL_SCRIPT_TOOL];
const ASYNC_PAIR = [ASYNC_STATUS_TOOL, ASYNC_CANCEL_TOOL];

const names = (catalog: Catalog, view: ToolView) => catalog.listTools(view).map((t) => t.name);
const view = (disclosure: Disclosure, unlocked: string[] = [], allowed?: string[]): ToolView =>
  allowed === undefined
    ? { disclosure, unlocked: new Set(unlocked) }
    : { disclosure, unlocked: new Set(unlocked), allowed: new Set(allowed) };

const tools = {
  alpha: ['skill_alpha_read_notes_md', 'skill_alpha_run_a_sh', 'skill_alpha_read_a_sh'],
  alphaAsync: [
    'skill_alpha_read_notes_md',
    'skill_alpha_run_a_sh',
    'skill_alpha_run_async_a_sh',
    'skill_alpha_read_a_sh',
  ],
  beta: ['skill_beta_read_b_md'],
  gamma: ['skill_gamma_run_g_py', 'skill_gamma_read_g_py'],
  gammaAsync: ['skill_gamma_run_g_py', 'skill_gamma_run_async_g_py', 'skill_gamma_read_g_py'],
};
const getInfo = (...skills: string[]) => skills.map((s) => `skill_${s}_get_info`);

describe('createCatalog: what each view lists', () => {
  const sync = build(false);
  const async = build(true);

  it.each<[string, Catalog, ToolView, string[]]>([
    ['namespaced, nothing unlocked', sync, view('namespaced'), getInfo('alpha', 'beta', 'gamma')],
    [
      'namespaced, alpha unlocked',
      sync,
      view('namespaced', ['alpha']),
      [...getInfo('alpha', 'beta', 'gamma'), ...tools.alpha],
    ],
    [
      'namespaced, unlocked in any order, listed in catalog order',
      sync,
      view('namespaced', ['gamma', 'alpha']),
      [...getInfo('alpha', 'beta', 'gamma'), ...tools.alpha, ...tools.gamma],
    ],
    [
      'namespaced, async, alpha unlocked',
      async,
      view('namespaced', ['alpha']),
      [...getInfo('alpha', 'beta', 'gamma'), ...tools.alphaAsync, ...ASYNC_PAIR],
    ],
    [
      'namespaced, async, only a skill without scripts unlocked',
      async,
      view('namespaced', ['beta']),
      [...getInfo('alpha', 'beta', 'gamma'), ...tools.beta],
    ],
    [
      'namespaced, unknown skill unlocked',
      sync,
      view('namespaced', ['nope']),
      getInfo('alpha', 'beta', 'gamma'),
    ],
    ['namespaced, allowed subset', sync, view('namespaced', [], ['beta', 'gamma']), getInfo('beta', 'gamma')],
    [
      'namespaced, unlocked but not allowed',
      async,
      view('namespaced', ['alpha', 'beta'], ['beta']),
      [...getInfo('beta'), ...tools.beta],
    ],
    ['namespaced, nothing allowed', async, view('namespaced', ['alpha'], []), []],
    [
      'eager',
      sync,
      view('eager'),
      [
        ...getInfo('alpha'),
        ...tools.alpha,
        ...getInfo('beta'),
        ...tools.beta,
        ...getInfo('gamma'),
        ...tools.gamma,
      ],
    ],
    [
      'eager, async',
      async,
      view('eager'),
      [
        ...getInfo('alpha'),
        ...tools.alphaAsync,
        ...getInfo('beta'),
        ...tools.beta,
        ...getInfo('gamma'),
        ...tools.gammaAsync,
        ...ASYNC_PAIR,
      ],
    ],
    [
      'eager, async, allowed skill without scripts',
      async,
      view('eager', [], ['beta']),
      [...getInfo('beta'), ...tools.beta],
    ],
    ['eager ignores unlocks', sync, view('eager', ['alpha'], ['beta']), [...getInfo('beta'), ...tools.beta]],
    ['universal', sync, view('universal'), UNIVERSAL],
    ['universal, async', async, view('universal', ['alpha']), [...UNIVERSAL, ...ASYNC_PAIR]],
    ['universal, nothing allowed', sync, view('universal', [], []), UNIVERSAL],
  ])('%s', (_label, catalog, toolView, expected) => {
    expect(names(catalog, toolView)).toEqual(expected);
  });

  it('answers access exactly as listTools, for every name and every view; only namespaced locks', () => {
    const views: ToolView[] = [];
    for (const disclosure of DISCLOSURES) {
      for (const unlocked of [[], ['alpha'], ['beta'], ['alpha', 'gamma'], ['nope']]) {
        for (const allowed of [undefined, [], ['alpha'], ['beta'], ['beta', 'gamma']]) {
          views.push(view(disclosure, unlocked, allowed));
        }
      }
    }
    for (const catalog of [sync, async]) {
      const every = [
        ...new Set([
          ...names(catalog, view('eager')),
          ...names(catalog, view('universal')),
          ...ASYNC_PAIR,
          'unknown',
        ]),
      ];
      for (const toolView of views) {
        const visible = new Set(names(catalog, toolView));
        for (const name of every) {
          const access = catalog.access(catalog.resolve(name), toolView);
          const where = `${name} in ${toolView.disclosure} ${JSON.stringify([...toolView.unlocked])}`;
          expect(access === 'callable', where).toBe(visible.has(name));
          if (access === 'locked') {
            const target = catalog.resolve(name);
            expect(toolView.disclosure, where).toBe('namespaced');
            expect(target !== undefined && 'skill' in target && !toolView.unlocked.has(target.skill)).toBe(
              true,
            );
          }
        }
      }
    }
  });

  it('catalog mode lists get_info tools plus read_skill_file and run_skill_script, whatever was unlocked', () => {
    for (const catalog of [sync, async]) {
      const base = names(catalog, view('catalog'));
      expect(base).toEqual([
        'skill_alpha_get_info',
        'skill_beta_get_info',
        'skill_gamma_get_info',
        READ_SKILL_FILE_TOOL,
        RUN_SKILL_SCRIPT_TOOL,
        ...(catalog.asyncEnabled ? ASYNC_PAIR : []),
      ]);
      expect(names(catalog, view('catalog', ['alpha', 'beta']))).toEqual(base);
      // A principal that may use no skill with scripts gets no async pair: nothing could start a job.
      expect(names(catalog, view('catalog', [], ['beta']))).toEqual([
        'skill_beta_get_info',
        READ_SKILL_FILE_TOOL,
        RUN_SKILL_SCRIPT_TOOL,
      ]);
    }
    expect(sync.access(sync.resolve('skill_alpha_run_a_sh'), view('catalog', ['alpha']))).toBe('hidden');
  });

  it('resolves the shared tools in every catalog, and the async pair only when async is enabled', () => {
    for (const name of UNIVERSAL) expect(sync.resolve(name)?.kind).toBe(name);
    expect(sync.resolve(ASYNC_STATUS_TOOL)).toBeUndefined();
    expect(sync.resolve(ASYNC_CANCEL_TOOL)).toBeUndefined();
    expect(async.resolve(ASYNC_STATUS_TOOL)).toEqual({ kind: 'get_async_status' });
    expect(async.resolve(ASYNC_CANCEL_TOOL)).toEqual({ kind: 'cancel_async' });
    expect(sync.resolve('skill_alpha_run_async_a_sh')).toBeUndefined();
    expect(sync.resolve('skill_nope_get_info')).toBeUndefined();
    expect(async.asyncEnabled).toBe(true);
    expect(sync.asyncEnabled).toBe(false);
  });

  it('returns the same frozen array for the common views instead of rebuilding it', () => {
    const allowed = new Set(['alpha']);
    for (const disclosure of DISCLOSURES) {
      const first = sync.listTools({ disclosure, unlocked: new Set() });
      expect(sync.listTools({ disclosure, unlocked: new Set() })).toBe(first);
      const filtered = sync.listTools({ disclosure, unlocked: new Set(), allowed });
      expect(sync.listTools({ disclosure, unlocked: new Set(), allowed })).toBe(filtered);
      expect(Object.isFrozen(first)).toBe(true);
    }
    const unlocked = sync.listTools(view('namespaced', ['alpha']));
    expect(Object.isFrozen(unlocked)).toBe(true);
    expect(unlocked[0]).toBe(sync.listTools(view('namespaced'))[0]);
  });

  it('gives sessions that unlocked the same skills one namespaced list, whatever order they unlocked them in', () => {
    const first = sync.listTools(view('namespaced', ['gamma', 'alpha']));
    expect(sync.listTools(view('namespaced', ['alpha', 'gamma']))).toBe(first);
    // An unlocked skill the view may not use is not part of what identifies the list.
    expect(sync.listTools(view('namespaced', ['alpha', 'gamma', 'nope']))).toBe(first);
    const other = sync.listTools(view('namespaced', ['alpha']));
    expect(other).not.toBe(first);
    expect(names(sync, view('namespaced', ['gamma', 'alpha']))).toEqual(first.map((t) => t.name));
    // Per allowed set: a filtered view never gets an unfiltered view's list.
    const allowed = new Set(['alpha']);
    const filtered = sync.listTools({
      disclosure: 'namespaced',
      unlocked: new Set(['alpha', 'gamma']),
      allowed,
    });
    expect(filtered.map((t) => t.name)).not.toContain('skill_gamma_run_g_py');
    expect(filtered).not.toBe(first);
  });

  it('describes load_skill with the skills of the view only', () => {
    const loadSkill = (allowed?: string[]) =>
      async.listTools(view('universal', [], allowed)).find((t) => t.name === LOAD_SKILL_TOOL)?.description ??
      '';
    expect(loadSkill()).toContain('- alpha: The alpha skill.');
    expect(loadSkill()).toContain('- gamma: The gamma skill.');
    const onlyBeta = loadSkill(['beta']);
    expect(onlyBeta).toContain('- beta: The beta skill.');
    expect(onlyBeta).not.toContain('alpha');
    expect(loadSkill([])).toContain('No skills');
  });
});
