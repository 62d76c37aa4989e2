import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { allowListView, queryTerms, rankDocuments, rankingScratch } from '../../src/search/bm25Ranking.js';
import { postingsSteps, SEARCH_FIELDS } from '../../src/search/postings.js';
import { searchDocument } from '../../src/search/searchDocument.js';
import { searchTerm, searchWords } from '../../src/search/searchTerms.js';
import { searchCorpus, searchQueries } from './searchCorpus.js';

// The ranking reproduces MiniSearch 7.2.0's BM25 as the gateway configured it until the index became one per
// catalog (docs/decisions.md, "One index per catalog"), with the parameters chosen since ("Search ranking"):
// classic BM25 (k1 2.0, b 0.75, no delta, the body boosted 3x) over our fields, words and stems, OR of the terms. This checks it against the library itself, so that a change to
// either side is seen.
const corpus = searchCorpus(120, 7);

function miniSearchOf() {
  const mini = new MiniSearch({
    idField: 'id',
    fields: [...SEARCH_FIELDS],
    tokenize: searchWords,
    processTerm: searchTerm,
    searchOptions: { combineWith: 'OR', boost: { body: 3 }, bm25: { k: 2, b: 0.75, d: 0 } },
  });
  mini.addAll(corpus.map(searchDocument));
  return mini;
}

function postingsOf() {
  const steps = postingsSteps(corpus);
  for (let step = steps.next(); ; step = steps.next()) if (step.done === true) return step.value;
}

describe('BM25 as MiniSearch 7.2.0 scored it', () => {
  it('ranks the same skills with the same scores (every term choosing candidates)', () => {
    const mini = miniSearchOf();
    const postings = postingsOf();
    const view = allowListView(postings, undefined);
    const scratch = rankingScratch(corpus.length);
    for (const query of searchQueries(60, 11)) {
      const want = new Map(mini.search(query).map((r) => [String(r.id), r.score]));
      const ranking = rankDocuments(queryTerms(query), { postings, view, scratch, maxTermShare: 1 });
      const got = new Map(
        [...ranking.docs].map((doc, i) => [postings.entries[doc]?.skill.name ?? '', ranking.scores[i] ?? 0]),
      );
      expect([...got.keys()].sort(), query).toEqual([...want.keys()].sort());
      for (const [name, score] of want) expect(got.get(name), `${query}: ${name}`).toBeCloseTo(score, 10);
    }
  });
});
