// The catalog-build phase of `pnpm bench`: load + createCatalog of 1,000 skills x 10 files with sha256
// digests of every file (what the gateway does for the Skills extension) against the same build without
// them, in the same run: rounds alternate so that both see the same page cache; the medians are compared.
import { createCatalog, loadSkills } from '@skillgate/skills';
import type { BenchContext } from './context.js';
import { percentile } from './support.js';
import { TARGETS } from './targets.js';

/** The catalog build row of the scale group. */
export async function catalogBuildPhase(context: BenchContext): Promise<void> {
  const { row, fmt } = context;
  const rounds = context.quick ? 3 : 9;
  // 5 generated files + 5 references of 1-8 KiB: 10 served files per skill, plus SKILL.md.
  const root = await context.skills(1000, 5);
  const build = async (digests: boolean) => {
    const t = performance.now();
    const { skills, problems } = await loadSkills({ roots: [root], validation: 'lenient', digests });
    createCatalog(skills, { maxNameLength: 48, asyncEnabled: false, maxTimeoutSeconds: 300, problems });
    return performance.now() - t;
  };
  await build(true); // warm the page cache and the JIT
  const withDigests: number[] = [];
  const without: number[] = [];
  for (let i = 0; i < rounds; i++) {
    without.push(await build(false));
    withDigests.push(await build(true));
  }
  const [w, wo] = [percentile(withDigests, 50), percentile(without, 50)];
  context.result('catalog_build', { with_digests_ms: withDigests, without_ms: without });
  row(
    'scale',
    'catalog build, 1,000 skills x 10 files, with digests (median ms)',
    fmt(w),
    `without digests ${fmt(wo)}`,
    `${fmt(w / wo, 2)}x`,
    TARGETS.digestsCost,
    w / wo,
  );
}
