// The tokens phase of `pnpm bench`: what a first tools/list costs a client's context, by disclosure mode,
// against eager (every tool of every skill), on the examples and on 100 and 1,000 generated skills.
import { createCatalog, type Disclosure, loadSkills } from '@skillgate/skills';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { BenchContext } from './context.js';
import { TARGETS } from './targets.js';

/** Rows of the tokens group: namespaced and universal first lists against eager, overhead per skill. */
export async function tokensPhase(context: BenchContext): Promise<void> {
  const { row, fmt } = context;
  const roots: Array<[string, string]> = [
    ['examples', context.examples],
    ['100 skills', await context.skills(100)],
    ['1,000 skills', await context.skills(1000)],
  ];
  for (const [label, root] of roots) {
    const { skills } = await loadSkills({ roots: [root], validation: 'lenient' });
    const catalog = createCatalog(skills, { maxNameLength: 48, asyncEnabled: false, maxTimeoutSeconds: 300 });
    // listTools(view) is exactly the array the gateway sends as tools/list `tools`.
    const count = (d: Disclosure) =>
      encode(JSON.stringify(catalog.listTools({ disclosure: d, unlocked: new Set() }))).length;
    const [namespaced, universal, eager] = [count('namespaced'), count('universal'), count('eager')];
    let overhead = 0;
    for (const e of catalog.skills.values())
      overhead += encode(JSON.stringify(e.getInfoTool)).length - encode(e.skill.description).length;
    const perSkill = overhead / catalog.skills.size;
    const target = label === '1,000 skills' ? TARGETS.namespacedShareAtScale : TARGETS.namespacedShare;
    context.result(`tokens_${label}`, { namespaced, universal, eager, overhead_per_skill: perSkill });
    row(
      'tokens',
      `initial tools/list, namespaced (${label})`,
      fmt(namespaced),
      `eager ${fmt(eager)}`,
      `${fmt((namespaced / eager) * 100, 1)}%`,
      target,
      // 100 skills: shown beside the others, judged at 1,000 and on the examples.
      label === '100 skills' ? undefined : namespaced / eager,
    );
    row(
      'tokens',
      `initial tools/list, universal (${label})`,
      fmt(universal),
      `eager ${fmt(eager)}`,
      `${fmt((universal / eager) * 100, 1)}%`,
    );
    row(
      'tokens',
      `overhead per skill beyond description (${label})`,
      fmt(perSkill, 1),
      '',
      '',
      TARGETS.overheadPerSkill,
      perSkill,
    );
    if (label === 'examples') {
      const info = catalog.skills.get('csv-tools')?.getInfoText ?? '';
      row('tokens', 'typical get_info result (csv-tools)', fmt(encode(info).length), '', '', '');
    }
  }
}
