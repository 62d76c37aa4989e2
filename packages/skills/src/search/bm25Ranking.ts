import { POSTINGS_FIELDS as F, type Postings, SEARCH_FIELDS } from './postings.js';
import { queryTerm, searchWords } from './searchTerms.js';

/**
 * The skills one caller may search, as the ranking reads them: which documents, how many, and the average
 * length of each field over them. Counted once per allow-list (a few numbers and one byte per skill) and
 * kept as long as the allow-list Set it was counted from.
 */
export interface AllowListView {
  /** 1 for an allowed document; undefined: every document. */
  readonly mask: Uint8Array | undefined;
  readonly count: number;
  /** Per field, the average length over the allowed documents (0 when there are none). */
  readonly averageLength: Float64Array;
}

/** The view of the documents `allowed` names (undefined: all of them). */
export function allowListView(postings: Postings, allowed: ReadonlySet<string> | undefined): AllowListView {
  const n = postings.entries.length;
  const mask = allowed === undefined ? undefined : new Uint8Array(n);
  const totals = new Float64Array(F);
  let count = 0;
  for (let doc = 0; doc < n; doc++) {
    if (mask !== undefined) {
      if (!allowed?.has(postings.entries[doc]?.skill.name ?? '')) continue;
      mask[doc] = 1;
    }
    count++;
    for (let f = 0; f < F; f++) totals[f] = (totals[f] ?? 0) + (postings.fieldLengths[doc * F + f] ?? 0);
  }
  // Sums of integers are exact, so the averages do not depend on the order documents were added in.
  const averageLength = totals.map((total) => (count === 0 ? 0 : total / count));
  return Object.freeze({ mask, count, averageLength });
}

/**
 * BM25 parameters: classic BM25, no BM25+ delta, k1 2.0, and a skill's body (the instructions below its
 * headings, where the specifics are: the tools, the steps) weighing three times any other field
 * (docs/decisions.md, "Search ranking"): on the ETOM dev set recall@1 0.857 -> 0.879, recall@5 0.962 -> 0.968,
 * the same gain on either half of it.
 */
const K1 = 2.0;
const B = 0.75;
/** Weight of each field of SEARCH_FIELDS (name, description, headings, body, paths, tools). */
const FIELD_WEIGHTS: readonly number[] = SEARCH_FIELDS.map((field) => (field === 'body' ? 3 : 1));

/** The ranked documents of one query: numbers and final scores at the same places, unsorted. */
export interface Ranking {
  readonly docs: Uint32Array;
  readonly scores: Float64Array;
}

/** Per-index scratch space, reused by every query (a search runs start to end without yielding). */
export interface RankingScratch {
  readonly score: Float64Array;
  /** How many distinct query terms each document matched. */
  readonly matched: Uint32Array;
  /** The last query term (1-based) that counted for the document in `matched`. */
  readonly lastTerm: Uint32Array;
  readonly candidate: Uint8Array;
  /** Documents touched by this query, in the order they were first scored. */
  readonly touched: Uint32Array;
}

/** Scratch space for an index of `n` documents. */
export function rankingScratch(n: number): RankingScratch {
  return {
    score: new Float64Array(n),
    matched: new Uint32Array(n),
    lastTerm: new Uint32Array(n),
    candidate: new Uint8Array(n),
    touched: new Uint32Array(n),
  };
}

/** The distinct terms of a query, in the order they first appear, with how many times each occurs. */
export interface QueryTerms {
  readonly distinct: readonly string[];
  readonly occurrences: readonly number[];
}

/** A query's index terms: stop words dropped, the rest stemmed, repeats counted. */
export function queryTerms(text: string): QueryTerms {
  const counts = new Map<string, number>();
  for (const word of searchWords(text)) {
    const term = queryTerm(word);
    if (term !== null) counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  return { distinct: [...counts.keys()], occurrences: [...counts.values()] };
}

/** Options of rankDocuments. */
export interface RankOptions {
  readonly postings: Postings;
  readonly view: AllowListView;
  readonly scratch: RankingScratch;
  /** Share of the allowed skills above which a term does not choose candidates (skillIndex.ts). */
  readonly maxTermShare: number;
}

/**
 * BM25 over the allowed documents only, with their own statistics: a term's document frequency is counted
 * over the allowed postings and a field's average length is the view's, so a hidden skill changes no score
 * (the same numbers an index of only the allowed skills would give). As MiniSearch 7.2.0 ranked (OR of the
 * terms): per term and field `idf * tf (k1 + 1) / (tf + k1 (1 - b + b len / avg))` with
 * `idf = ln(1 + (N - df + 0.5) / (df + 0.5))`, df counted per field, summed once per occurrence of the term in
 * the query, and the sum multiplied by the number of distinct query terms the skill holds. Only documents
 * holding a rare term are ranked when the query also has common ones (docs/decisions.md).
 */
export function rankDocuments(terms: QueryTerms, options: RankOptions): Ranking {
  const { postings, view, scratch, maxTermShare } = options;
  const { mask, count } = view;
  const ids: number[] = [];
  const weights: number[] = [];
  const rare: boolean[] = [];
  const maxFrequency = maxTermShare * count;
  terms.distinct.forEach((term, i) => {
    const t = postings.terms.get(term);
    const frequency =
      t === undefined
        ? 0
        : allowedIn(postings.anyDocs, postings.anyStart[t] ?? 0, postings.anyStart[t + 1] ?? 0, mask);
    // A term no allowed skill holds chooses nothing: it is not rare, or a typo beside common words would
    // choose no candidates at all and the query would find nothing ("data zzqxv" found nothing, "data" 20).
    rare.push(frequency > 0 && frequency <= maxFrequency);
    if (t === undefined || frequency === 0) return;
    ids.push(t);
    weights.push(terms.occurrences[i] ?? 1);
  });
  const rareCount = rare.filter(Boolean).length;
  const pruned = rareCount > 0 && rareCount < rare.length;
  const { score, matched, lastTerm, candidate, touched } = scratch;
  if (pruned) markCandidates(terms, rare, options);
  let hits = 0;
  for (let i = 0; i < ids.length; i++) {
    const t = ids[i] ?? 0;
    const weight = weights[i] ?? 1;
    const stamp = i + 1;
    for (let f = 0; f < F; f++) {
      const slot = t * F + f;
      const start = postings.fieldStart[slot] ?? 0;
      const end = postings.fieldStart[slot + 1] ?? 0;
      if (start === end) continue;
      const df = allowedIn(postings.fieldDocs, start, end, mask);
      if (df === 0) continue;
      const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
      const average = view.averageLength[f] ?? 1;
      for (let p = start; p < end; p++) {
        const doc = postings.fieldDocs[p] ?? 0;
        if (pruned ? candidate[doc] !== 1 : mask !== undefined && mask[doc] !== 1) continue;
        const tf = postings.fieldCounts[p] ?? 0;
        const length = postings.fieldLengths[doc * F + f] ?? 0;
        // MiniSearch's expression as it wrote it, so that the floating-point result is the same.
        const value =
          idf * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / average))) * (FIELD_WEIGHTS[f] ?? 1);
        if (lastTerm[doc] === 0) touched[hits++] = doc;
        if (lastTerm[doc] !== stamp) {
          lastTerm[doc] = stamp;
          matched[doc] = (matched[doc] ?? 0) + 1;
        }
        score[doc] = (score[doc] ?? 0) + weight * value;
      }
    }
  }
  const docs = touched.slice(0, hits);
  const scores = new Float64Array(hits);
  for (let h = 0; h < hits; h++) {
    const doc = docs[h] ?? 0;
    scores[h] = (score[doc] ?? 0) * (matched[doc] ?? 0);
    score[doc] = 0;
    matched[doc] = 0;
    lastTerm[doc] = 0;
  }
  if (pruned) clearCandidates(terms, rare, options);
  return { docs, scores };
}

/** How many of `docs[start .. end)` the mask allows. */
function allowedIn(docs: Uint32Array, start: number, end: number, mask: Uint8Array | undefined): number {
  if (mask === undefined) return end - start;
  let n = 0;
  for (let p = start; p < end; p++) n += mask[docs[p] ?? 0] ?? 0;
  return n;
}

/** Marks (1) the allowed documents that hold a rare term of the query. */
function markCandidates(terms: QueryTerms, rare: readonly boolean[], options: RankOptions): void {
  setCandidates(terms, rare, options, 1);
}

function clearCandidates(terms: QueryTerms, rare: readonly boolean[], options: RankOptions): void {
  setCandidates(terms, rare, options, 0);
}

function setCandidates(
  terms: QueryTerms,
  rare: readonly boolean[],
  options: RankOptions,
  value: 0 | 1,
): void {
  const { postings, view, scratch } = options;
  terms.distinct.forEach((term, i) => {
    const t = postings.terms.get(term);
    if (t === undefined || rare[i] !== true) return;
    for (let p = postings.anyStart[t] ?? 0; p < (postings.anyStart[t + 1] ?? 0); p++) {
      const doc = postings.anyDocs[p] ?? 0;
      if (view.mask === undefined || view.mask[doc] === 1) scratch.candidate[doc] = value;
    }
  });
}
