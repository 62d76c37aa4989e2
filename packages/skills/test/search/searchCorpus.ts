import { type CatalogSkill, createCatalog } from '../../src/index.js';
import { makeSkill } from '../helpers/skills.js';

/** A seeded pseudo-random source (mulberry32), so every run searches the same corpus. */
export function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Words of very different rarity: the first few are in most skills, the last in one or two.
const WORDS =
  'data server files deploy cloud invoice weather stream queue ledger render github slack postgres kafka figma heroku pdf spreadsheet calendar email translate image video audio search index vector embedding backup archive monitor alert billing payment token secret'.split(
    ' ',
  );

/** `count` skills with descriptions and bodies drawn from WORDS, common words far more often than rare ones. */
export function searchCorpus(count: number, seed = 1): CatalogSkill[] {
  const random = seeded(seed);
  const word = () => WORDS[Math.floor(WORDS.length * random() ** 2.5)] ?? 'data';
  const text = (n: number) => Array.from({ length: n }, word).join(' ');
  const skills = Array.from({ length: count }, (_, i) => {
    const skill = makeSkill(
      `skill-${String(i).padStart(3, '0')}-${word()}`,
      random() < 0.3 ? [`scripts/${word()}.py`] : [],
      `${text(3 + Math.floor(random() * 8))}.`,
    );
    return { ...skill, body: `# ${text(2)}\n\n${text(5 + Math.floor(random() * 40))}\n## ${text(1)}\n` };
  });
  return [
    ...createCatalog(skills, {
      maxNameLength: 48,
      asyncEnabled: false,
      maxTimeoutSeconds: 60,
    }).skills.values(),
  ];
}

/** `count` queries of 1 to 12 words of the corpus, a few with words no skill holds. */
export function searchQueries(count: number, seed = 2): string[] {
  const random = seeded(seed);
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + Math.floor(random() * 12) }, () =>
      random() < 0.05 ? 'zzqxv' : (WORDS[Math.floor(WORDS.length * random())] ?? 'data'),
    ).join(' '),
  );
}
