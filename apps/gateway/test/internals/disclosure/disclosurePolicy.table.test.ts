import { configSchema } from '@skillgate/config';
import { createCatalog, type Disclosure, loadSkills } from '@skillgate/skills';
import { createMemorySessionStore } from '@skillgate/state';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessPolicy, type Principal, tokenPrincipal } from '../../../src/auth/accessPolicy.js';
import type { Audience, Era } from '../../../src/disclosure/audience.js';
import { createDisclosurePolicy } from '../../../src/disclosure/disclosurePolicy.js';
import { EXAMPLES_ROOT } from '../../helpers/testGateway.js';

// The disclosure rule as one table: mode x era x allow-list x unlocked -> what tools/list holds and what a
// call of each kind of tool gets. Seven example skills; `cap` is tools.max_listed.

const store = createMemorySessionStore({ ttlMs: 60_000, maxSessions: 100, maxPerPrincipal: 100 });
afterAll(() => store.close());

const ALL = tokenPrincipal('all', ['*']);
const TWO = tokenPrincipal('two', ['text-stats', 'csv-tools']);

interface Row {
  readonly mode: Disclosure;
  readonly era: Era;
  readonly who: Principal;
  readonly unlocked: readonly string[];
  readonly cap?: number;
  /** The first names of the list, in order (the rest is asserted by `size`). */
  readonly listed: readonly string[];
  readonly size: number;
  /** Tool name -> the policy's decision for a call. */
  readonly calls: Readonly<Record<string, 'callable' | 'locked' | 'unknown'>>;
}

const GI = (s: string) => `skill_${s}_get_info`;
const RUN = 'skill_text-stats_run_stats_py';

const TABLE: readonly Row[] = [
  {
    mode: 'namespaced',
    era: 'legacy',
    who: ALL,
    unlocked: [],
    listed: [GI('brand-assets')],
    size: 7,
    calls: {
      [GI('text-stats')]: 'callable',
      [RUN]: 'locked',
      search_skills: 'unknown',
      load_skill: 'unknown',
    },
  },
  {
    mode: 'namespaced',
    era: 'legacy',
    who: ALL,
    unlocked: ['text-stats'],
    listed: [GI('brand-assets')],
    size: 10,
    calls: { [RUN]: 'callable', read_skill_file: 'unknown' },
  },
  {
    mode: 'namespaced',
    era: 'legacy',
    who: TWO,
    unlocked: ['text-stats', 'log-triage'],
    listed: [GI('csv-tools'), GI('text-stats')],
    size: 5,
    calls: { [RUN]: 'callable', [GI('log-triage')]: 'unknown', skill_log_triage_run_triage_sh: 'unknown' },
  },
  {
    mode: 'catalog',
    era: 'modern',
    who: ALL,
    unlocked: [],
    listed: [GI('brand-assets')],
    size: 9,
    calls: {
      read_skill_file: 'callable',
      run_skill_script: 'callable',
      [RUN]: 'unknown',
      search_skills: 'unknown',
    },
  },
  {
    mode: 'universal',
    era: 'modern',
    who: TWO,
    unlocked: [],
    listed: ['load_skill', 'list_skill_files', 'read_skill_file', 'run_skill_script'],
    size: 4,
    calls: { load_skill: 'callable', [GI('text-stats')]: 'unknown', search_skills: 'unknown' },
  },
  {
    mode: 'eager',
    era: 'legacy',
    who: TWO,
    unlocked: [],
    listed: [GI('csv-tools')],
    size: 11,
    calls: { [RUN]: 'callable', [GI('log-triage')]: 'unknown' },
  },
  {
    mode: 'search',
    era: 'legacy',
    who: ALL,
    unlocked: [],
    listed: ['search_skills', 'load_skill', 'read_skill_file', 'run_skill_script'],
    size: 4,
    calls: {
      search_skills: 'callable',
      load_skill: 'callable',
      list_skill_files: 'unknown',
      [GI('text-stats')]: 'unknown',
      [RUN]: 'unknown',
    },
  },
  {
    mode: 'search',
    era: 'modern',
    who: TWO,
    unlocked: [],
    listed: ['search_skills', 'load_skill', 'read_skill_file', 'run_skill_script'],
    size: 4,
    calls: { search_skills: 'callable', [GI('log-triage')]: 'unknown' },
  },
  // tools.max_listed: over the cap, any mode becomes search; at or under it, nothing changes.
  {
    mode: 'namespaced',
    era: 'legacy',
    who: ALL,
    unlocked: ['text-stats'],
    cap: 6,
    listed: ['search_skills', 'load_skill'],
    size: 4,
    calls: { [RUN]: 'unknown', search_skills: 'callable' },
  },
  {
    mode: 'catalog',
    era: 'modern',
    who: TWO,
    unlocked: [],
    cap: 4,
    listed: [GI('csv-tools'), GI('text-stats'), 'read_skill_file', 'run_skill_script'],
    size: 4,
    calls: { search_skills: 'unknown' },
  },
  {
    mode: 'universal',
    era: 'legacy',
    who: ALL,
    unlocked: [],
    cap: 10,
    listed: ['search_skills'],
    size: 4,
    calls: { list_skill_files: 'unknown', load_skill: 'callable' },
  },
];

// Rows without a cap get the config's own default of tools.max_listed (the policy declares none).
const DEFAULT_MAX_LISTED = configSchema.parse({}).tools.max_listed;

let catalog: ReturnType<typeof createCatalog>;
beforeAll(async () => {
  const { skills } = await loadSkills({ roots: [EXAMPLES_ROOT], validation: 'lenient' });
  catalog = createCatalog(skills, { maxNameLength: 48, asyncEnabled: false, maxTimeoutSeconds: 300 });
});

describe('the disclosure rule, as a table', () => {
  it.each(TABLE.map((row, i) => [i, row] as const))('row %i', async (i, row) => {
    const policy = createDisclosurePolicy({
      access: createAccessPolicy({ tokens: [], allowAnonymous: true, anonymousSkills: [] }),
      store,
      maxInstructionsChars: 2048,
      maxListed: row.cap ?? DEFAULT_MAX_LISTED,
    });
    const scopeKey = `row-${i}`;
    for (const skill of row.unlocked) await store.unlock(scopeKey, skill);
    const audience: Audience = { era: row.era, disclosure: row.mode, principal: row.who, scopeKey };
    const list = (await policy.listTools(catalog, audience)).map((t) => t.name);
    expect(list.slice(0, row.listed.length)).toEqual(row.listed);
    expect(list).toHaveLength(row.size);
    for (const [name, want] of Object.entries(row.calls)) {
      const decision = await policy.decideCall(catalog, audience, catalog.resolve(name));
      expect(decision.kind, name).toBe(want);
    }
  });
});
