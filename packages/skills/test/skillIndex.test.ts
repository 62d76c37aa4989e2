import { describe, expect, it } from 'vitest';
import { buildSkillIndex, type CatalogSkill, createCatalog } from '../src/index.js';
import { makeSkill } from './helpers/skills.js';

const entriesOf = (skills: ReturnType<typeof makeSkill>[]): CatalogSkill[] => [
  ...createCatalog(skills, { maxNameLength: 48, asyncEnabled: false, maxTimeoutSeconds: 60 }).skills.values(),
];

// Twenty skills that all say "data"; a few say rarer words too.
const SKILLS = entriesOf([
  makeSkill('invoice-reader', [], 'Reads invoice data from PDF files.'),
  makeSkill('invoice-writer', [], 'Writes invoice data to spreadsheets, invoice after invoice.'),
  makeSkill('weather', [], 'Weather data for a city.'),
  ...Array.from({ length: 17 }, (_, i) =>
    makeSkill(`store-${String(i).padStart(2, '0')}`, [], 'Stores data.'),
  ),
]);

const names = (page: ReturnType<ReturnType<typeof buildSkillIndex>['search']>) =>
  page?.results.map((r) => [r.skill, r.score]);

describe('search ranking with common query terms', () => {
  it('ranks the skills a rare word chose by every word, with the scores of full BM25', () => {
    const exact = buildSkillIndex(SKILLS, { maxTermShare: 1 });
    const pruned = buildSkillIndex(SKILLS, { maxTermShare: 0.5 });
    const query = { query: 'read invoice data', limit: 3 };
    // "data" is in every skill: it chooses no candidates, but still adds to the scores of those chosen; the
    // skills that hold only "data" are not ranked at all.
    const chosen = names(pruned.search(query));
    expect(chosen).toEqual(names(exact.search(query))?.slice(0, 2));
    expect(chosen?.map(([skill]) => skill)).toEqual(['invoice-reader', 'invoice-writer']);
  });

  it('a query of common words only still ranks every skill that holds them', () => {
    const pruned = buildSkillIndex(SKILLS, { maxTermShare: 0.5 });
    const page = pruned.search({ query: 'data', limit: 20 });
    expect(page?.results).toHaveLength(20);
  });

  it('breaks ties by name across pages, though only the head of the ranking is sorted', () => {
    const index = buildSkillIndex(SKILLS);
    const first = index.search({ query: 'stores', limit: 5 });
    expect(first?.results.map((r) => r.skill)).toEqual([
      'store-00',
      'store-01',
      'store-02',
      'store-03',
      'store-04',
    ]);
    const cursor = first?.nextCursor ?? '';
    const second = index.search({ query: 'stores', limit: 5, cursor });
    expect(second?.results.map((r) => r.skill)).toEqual([
      'store-05',
      'store-06',
      'store-07',
      'store-08',
      'store-09',
    ]);
  });
});
