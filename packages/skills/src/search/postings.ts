import type { CatalogSkill } from '../catalog/catalogTypes.js';
import { type SearchDocument, searchDocument } from './searchDocument.js';
import { searchTerm, searchWords } from './searchTerms.js';

/** The fields a skill is ranked by, in the order their scores are added (docs/decisions.md, search ranking). */
export const SEARCH_FIELDS = ['name', 'description', 'headings', 'body', 'paths', 'tools'] as const;
const FIELD_COUNT = SEARCH_FIELDS.length;

/**
 * The inverted index of one catalog, in flat typed arrays (a few bytes a posting, nothing per term but its
 * offsets). Documents are numbered in catalog order; term `t`'s postings are the ranges its offsets name.
 * Nothing here depends on who asks: a caller's statistics are counted from it at query time (bm25Ranking.ts).
 */
export interface Postings {
  /** The catalog entries, by document number. */
  readonly entries: readonly CatalogSkill[];
  /** Term -> term number. */
  readonly terms: ReadonlyMap<string, number>;
  /** Documents holding term t in any field: `anyDocs[anyStart[t] .. anyStart[t + 1])`, ascending. */
  readonly anyStart: Uint32Array;
  readonly anyDocs: Uint32Array;
  /**
   * Documents holding term t in field f, slot `s = t * FIELD_COUNT + f`: `fieldDocs[fieldStart[s] ..
   * fieldStart[s + 1])`, ascending, with the term's count in that field at the same place of `fieldCounts`.
   */
  readonly fieldStart: Uint32Array;
  readonly fieldDocs: Uint32Array;
  readonly fieldCounts: Uint32Array;
  /** Distinct words (before stemming and stop words) of document d's field f, at `d * FIELD_COUNT + f`. */
  readonly fieldLengths: Uint32Array;
  /** Document numbers in name order (the order "*" lists and ties break in). */
  readonly byName: Uint32Array;
  /** Each document's place in name order. */
  readonly nameRank: Uint32Array;
}

/** What one term collects while documents are added. */
interface TermBuilder {
  readonly any: number[];
  /** Per field: document, count, document, count... */
  readonly fields: Array<number[] | undefined>;
  last: number;
}

/** How many terms are packed into the flat arrays between two pauses of a sliced build. */
const TERMS_PER_STEP = 2_000;

/**
 * Builds the postings, pausing (yield) after each skill and every few thousand terms packed: run whole or in
 * slices (skillIndex.ts).
 */
export function* postingsSteps(entries: readonly CatalogSkill[]): Generator<void, Postings, void> {
  const terms = new Map<string, number>();
  const builders: TermBuilder[] = [];
  const fieldLengths = new Uint32Array(entries.length * FIELD_COUNT);
  for (let doc = 0; doc < entries.length; doc++) {
    const entry = entries[doc];
    if (entry === undefined) continue;
    addDocument(searchDocument(entry), doc, { terms, builders, fieldLengths });
    yield;
  }
  const anyStart = new Uint32Array(builders.length + 1);
  const fieldStart = new Uint32Array(builders.length * FIELD_COUNT + 1);
  let anyTotal = 0;
  let fieldTotal = 0;
  builders.forEach((builder, t) => {
    anyTotal += builder.any.length;
    anyStart[t + 1] = anyTotal;
    for (let f = 0; f < FIELD_COUNT; f++) {
      fieldTotal += (builder.fields[f]?.length ?? 0) / 2;
      fieldStart[t * FIELD_COUNT + f + 1] = fieldTotal;
    }
  });
  const anyDocs = new Uint32Array(anyTotal);
  const fieldDocs = new Uint32Array(fieldTotal);
  const fieldCounts = new Uint32Array(fieldTotal);
  for (let t = 0; t < builders.length; t++) {
    const builder = builders[t];
    if (builder === undefined) continue;
    anyDocs.set(builder.any, anyStart[t]);
    for (let f = 0; f < FIELD_COUNT; f++) {
      const pairs = builder.fields[f];
      if (pairs === undefined) continue;
      let at = fieldStart[t * FIELD_COUNT + f] ?? 0;
      for (let i = 0; i < pairs.length; i += 2) {
        fieldDocs[at] = pairs[i] ?? 0;
        fieldCounts[at] = pairs[i + 1] ?? 0;
        at++;
      }
    }
    // Dropped as packed, so the build never holds both forms of the whole index.
    builders[t] = EMPTY_BUILDER;
    if (t % TERMS_PER_STEP === TERMS_PER_STEP - 1) yield;
  }
  const byName = Uint32Array.from(entries.keys()).sort((a, b) =>
    compareNames(entries[a]?.skill.name ?? '', entries[b]?.skill.name ?? ''),
  );
  const nameRank = new Uint32Array(entries.length);
  byName.forEach((doc, rank) => {
    nameRank[doc] = rank;
  });
  return Object.freeze({
    entries,
    terms,
    anyStart,
    anyDocs,
    fieldStart,
    fieldDocs,
    fieldCounts,
    fieldLengths,
    byName,
    nameRank,
  });
}

const EMPTY_BUILDER: TermBuilder = { any: [], fields: [], last: -1 };

/** Code-unit order of names: how results tie-break and "*" lists. */
const compareNames = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

interface BuildState {
  readonly terms: Map<string, number>;
  readonly builders: TermBuilder[];
  readonly fieldLengths: Uint32Array;
}

/**
 * Adds one document's fields. A field's length is its count of distinct words before stemming and stop
 * words, and a term's count is how often its stem occurs: what MiniSearch 7.2.0 counted, whose BM25 this
 * index reproduces (docs/decisions.md, "One index per catalog").
 */
function addDocument(document: SearchDocument, doc: number, state: BuildState): void {
  const { terms, builders, fieldLengths } = state;
  SEARCH_FIELDS.forEach((field, f) => {
    const words = searchWords(document[field]);
    fieldLengths[doc * FIELD_COUNT + f] = new Set(words).size;
    const counts = new Map<string, number>();
    for (const word of words) {
      const term = searchTerm(word);
      if (term !== null) counts.set(term, (counts.get(term) ?? 0) + 1);
    }
    for (const [term, count] of counts) {
      let t = terms.get(term);
      if (t === undefined) {
        t = builders.length;
        terms.set(term, t);
        builders.push({ any: [], fields: [], last: -1 });
      }
      const builder = builders[t];
      if (builder === undefined) continue;
      if (builder.last !== doc) {
        builder.any.push(doc);
        builder.last = doc;
      }
      const pairs = builder.fields[f];
      if (pairs === undefined) builder.fields[f] = [doc, count];
      else pairs.push(doc, count);
    }
  });
}

/** How many fields each document has in the postings' arrays. */
export const POSTINGS_FIELDS = FIELD_COUNT;
