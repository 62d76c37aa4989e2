import { describe, expect, it } from 'vitest';
import { buildSkillIndex, type CatalogSkill, createCatalog } from '../../src/index.js';
import { makeSkill } from '../helpers/skills.js';
import { searchCorpus, searchQueries, seeded } from './searchCorpus.js';

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

  it('a word no skill holds beside common words ranks as the common words alone (a typo loses nothing)', () => {
    const pruned = buildSkillIndex(SKILLS, { maxTermShare: 0.5 });
    const withTypo = pruned.search({ query: 'data zzqxv', limit: 20 });
    expect(withTypo?.results).toHaveLength(20);
    expect(names(withTypo)).toEqual(names(pruned.search({ query: 'data', limit: 20 })));
    // Beside a rare word, it changes nothing either.
    expect(names(pruned.search({ query: 'read invoice data zzqxv', limit: 3 }))).toEqual(
      names(pruned.search({ query: 'read invoice data', limit: 3 })),
    );
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

describe('one index searched as any allow-list', () => {
  const corpus = searchCorpus(80);
  const queries = searchQueries(40);
  const index = buildSkillIndex(corpus);
  const random = seeded(3);
  const allowLists = Array.from({ length: 12 }, () => {
    const share = random();
    return corpus.filter(() => random() < share);
  });

  it('gives every result, order and score of an index of only the allowed skills', () => {
    for (const allowed of allowLists) {
      const names = new Set(allowed.map((e) => e.skill.name));
      const alone = buildSkillIndex(allowed);
      for (const query of [...queries, '*']) {
        let cursor: string | undefined;
        do {
          const page = { query, limit: 7, ...(cursor === undefined ? {} : { cursor }) };
          const got = index.search(page, names);
          expect(got, `${names.size} skills: ${query}`).toEqual(alone.search(page));
          cursor = got?.nextCursor;
        } while (cursor !== undefined);
      }
    }
  });

  it('an allow-list of every skill ranks as no allow-list', () => {
    const every = new Set(corpus.map((e) => e.skill.name));
    for (const query of queries) {
      expect(index.search({ query, limit: 20 }, every)).toEqual(index.search({ query, limit: 20 }));
    }
  });
});
