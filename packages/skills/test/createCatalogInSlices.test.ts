import { describe, expect, it } from 'vitest';
import { type CatalogOptions, createCatalog, createCatalogInSlices } from '../src/index.js';
import { makeSkill } from './helpers/skills.js';

const OPTIONS: CatalogOptions = { maxNameLength: 48, asyncEnabled: true, maxTimeoutSeconds: 300 };

describe('createCatalogInSlices', () => {
  it('builds exactly what createCatalog builds, with name clashes resolved the same way', async () => {
    const skills = [
      ...Array.from({ length: 300 }, (_, i) =>
        makeSkill(`skill-${i}`, ['scripts/run.py', 'references/a.md']),
      ),
      makeSkill('skill_0', ['scripts/run.py']),
    ];
    const whole = createCatalog(skills, OPTIONS);
    const sliced = await createCatalogInSlices(skills, OPTIONS);
    for (const disclosure of ['eager', 'universal', 'namespaced'] as const) {
      const view = { disclosure, unlocked: new Set(['skill-7', 'skill_0']) };
      expect(sliced.listTools(view)).toEqual(whole.listTools(view));
    }
    expect(sliced.problems).toEqual(whole.problems);
    expect([...sliced.extension.entries.keys()]).toEqual([...whole.extension.entries.keys()]);
    expect(sliced.resolve('skill_skill-299_run_run_py')).toEqual(whole.resolve('skill_skill-299_run_run_py'));
  });

  it('lets other work run while it builds', async () => {
    const skills = Array.from({ length: 2000 }, (_, i) => makeSkill(`s-${i}`, ['scripts/run.py']));
    let turns = 0;
    let done = false;
    const tick = (): void => {
      turns += 1;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    const building = createCatalogInSlices(skills, OPTIONS);
    await building;
    done = true;
    expect(turns).toBeGreaterThan(1);
  });
});
