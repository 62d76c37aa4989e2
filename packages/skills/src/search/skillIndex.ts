import MiniSearch from 'minisearch';
import type { CatalogSkill } from '../catalog/catalogTypes.js';
import { type SearchDocument, searchableTools, searchDocument } from './searchDocument.js';
import { searchTerm, searchTerms, searchWords } from './searchTerms.js';

/** One ranked skill. */
export interface SkillHit {
  readonly skill: string;
  readonly description: string;
  /** The BM25 score, rounded to 3 decimals (0 when listing with `*`). */
  readonly score: number;
  /** Up to 5 of the skill's scripts or upstream tools that share a word with the query. */
  readonly tools: ReadonlyArray<{ readonly name: string; readonly description: string }>;
}

/** One page of results. */
export interface SkillSearchPage {
  readonly results: readonly SkillHit[];
  /** Present when more results follow: pass it as `cursor` with the same query. */
  readonly nextCursor?: string;
}

/** What to search for. */
export interface SkillQuery {
  readonly query: string;
  readonly limit: number;
  readonly cursor?: string;
}

/** A search index over a fixed set of skills (one catalog, one allow-list). */
export interface SkillIndex {
  /** How many skills it holds: all a caller may use, and nothing else. */
  readonly size: number;
  /** The ranked page, or undefined when `cursor` is not one this index gave for this query. */
  search(query: SkillQuery): SkillSearchPage | undefined;
}

/** The query that lists every skill in name order. */
export const LIST_ALL_QUERY = '*';

// Every field counts the same: measured on the ETOM dev set, boosting the name or the description lost
// recall (docs/decisions.md). Classic BM25 (no BM25+ delta) ranked best there.
const FIELDS = ['name', 'description', 'headings', 'body', 'paths', 'tools'] as const;
const BM25 = { k: 1.5, b: 0.75, d: 0 };
const MAX_TOOLS_PER_HIT = 5;

/**
 * A query term found in more than this share of the skills does not choose candidates: only skills that hold
 * a rarer term of the query are scored (by every term), unless the query has no rarer term
 * (docs/decisions.md).
 */
const MAX_TERM_SHARE = 0.1;

/** Options of an index build. */
export interface SkillIndexOptions {
  /** Share of skills above which a query term does not choose candidates (default 0.1; 1: every term does). */
  readonly maxTermShare?: number;
}

/** A query's terms, and those rare enough to choose the candidates. */
interface QueryTerms {
  /** Every term, repeats kept (MiniSearch scores each occurrence). */
  readonly all: readonly string[];
  readonly rare: readonly string[];
}

// Query terms are already processed (searchQueryTerms): MiniSearch only splits them again.
const PROCESSED_QUERY = { tokenize: (text: string) => text.split(' '), processTerm: (term: string) => term };

/** The index build, pausing (yield) after each skill: run whole (buildSkillIndex) or in slices. */
function* indexSteps(
  entries: readonly CatalogSkill[],
  options: SkillIndexOptions,
): Generator<void, SkillIndex, void> {
  // How many skills hold each term (in any field), counted as MiniSearch processes a document's words.
  const documentFrequency = new Map<string, number>();
  let documentTerms = new Set<string>();
  const mini = new MiniSearch<SearchDocument>({
    idField: 'id',
    fields: [...FIELDS],
    tokenize: searchWords,
    processTerm: (word: string) => {
      const term = searchTerm(word);
      if (term !== null) documentTerms.add(term);
      return term;
    },
    searchOptions: { combineWith: 'OR' as const, bm25: BM25 },
  });
  const byName = new Map<string, CatalogSkill>();
  for (const entry of entries) {
    byName.set(entry.skill.name, entry);
    documentTerms = new Set();
    mini.add(searchDocument(entry));
    for (const term of documentTerms) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    yield;
  }
  const sorted = [...byName.keys()].sort(compareNames);
  const maxFrequency = (options.maxTermShare ?? MAX_TERM_SHARE) * byName.size;
  const scored = (text: string) => scoredTerms(text, documentFrequency, maxFrequency);
  return Object.freeze({
    size: byName.size,
    search: (query: SkillQuery) => runQuery(mini, byName, sorted, scored, query),
  });
}

/** The query's terms, split by how many skills hold them. */
function scoredTerms(text: string, frequency: ReadonlyMap<string, number>, maxFrequency: number): QueryTerms {
  const all: string[] = [];
  for (const word of searchWords(text)) {
    const term = searchTerm(word);
    if (term !== null) all.push(term);
  }
  return { all, rare: all.filter((term) => (frequency.get(term) ?? 0) <= maxFrequency) };
}

/**
 * BM25 over every term of the query, among the skills that hold one of its rare terms (all skills when it has
 * none, or no common one). A common term's weight is small, and scoring it everywhere visits most of the
 * index; skipping a skill costs MiniSearch one lookup (boostDocument 0) instead of a scored result.
 */
function rankedHits(mini: MiniSearch<SearchDocument>, terms: QueryTerms) {
  const { all, rare } = terms;
  if (rare.length === 0 || rare.length === all.length) return mini.search(all.join(' '), PROCESSED_QUERY);
  // Collected as MiniSearch visits them (boost 0: no result is built for them here).
  const candidates = new Set<unknown>();
  mini.search(rare.join(' '), {
    ...PROCESSED_QUERY,
    boostDocument: (id: unknown) => {
      candidates.add(id);
      return 0;
    },
  });
  return mini.search(all.join(' '), {
    ...PROCESSED_QUERY,
    boostDocument: (id: unknown) => (candidates.has(id) ? 1 : 0),
  });
}

/** Builds an index in one piece (the CLI, tests). */
export function buildSkillIndex(
  entries: readonly CatalogSkill[],
  options: SkillIndexOptions = {},
): SkillIndex {
  const steps = indexSteps(entries, options);
  for (let step = steps.next(); ; step = steps.next()) if (step.done === true) return step.value;
}

/** How long an index build computes before it lets other work run. */
const SLICE_MS = 5;

/** Builds an index in slices of about 5 ms with the event loop free in between (10,000 skills take ~2 s). */
export async function buildSkillIndexInSlices(
  entries: readonly CatalogSkill[],
  options: SkillIndexOptions = {},
): Promise<SkillIndex> {
  const steps = indexSteps(entries, options);
  let sliceStart = performance.now();
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done === true) return step.value;
    if (performance.now() - sliceStart < SLICE_MS) continue;
    await new Promise((resolve) => setImmediate(resolve));
    sliceStart = performance.now();
  }
}

const compareNames = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function runQuery(
  mini: MiniSearch<SearchDocument>,
  byName: ReadonlyMap<string, CatalogSkill>,
  sorted: readonly string[],
  scored: (text: string) => QueryTerms,
  query: SkillQuery,
): SkillSearchPage | undefined {
  const text = query.query.trim();
  const offset = query.cursor === undefined ? 0 : readCursor(query.cursor, text);
  if (offset === undefined) return undefined;
  let page: Array<{ skill: string; score: number }>;
  let total: number;
  if (text === LIST_ALL_QUERY) {
    page = sorted.slice(offset, offset + query.limit).map((skill) => ({ skill, score: 0 }));
    total = sorted.length;
  } else {
    const hits = rankedHits(mini, scored(text));
    total = hits.length;
    // MiniSearch sorts by score: only the head up to this page, and whatever ties its last score, needs
    // the name order that breaks ties (so a catalog always answers a query the same way).
    let end = Math.min(hits.length, offset + query.limit);
    while (end > 0 && end < hits.length && hits[end]?.score === hits[end - 1]?.score) end++;
    page = hits
      .slice(0, end)
      .map((r) => ({ skill: String(r.id), score: r.score }))
      .sort((a, b) => b.score - a.score || compareNames(a.skill, b.skill))
      .slice(offset, offset + query.limit);
  }
  const queryTerms = text === LIST_ALL_QUERY ? new Set<string>() : searchTerms(text);
  const results: SkillHit[] = [];
  for (const { skill, score } of page) {
    const entry = byName.get(skill);
    if (entry === undefined) continue;
    results.push({
      skill,
      description: entry.skill.description,
      score: Math.round(score * 1000) / 1000,
      tools: matchingTools(entry, queryTerms),
    });
  }
  const next = offset + page.length;
  return next < total ? { results, nextCursor: writeCursor(next, text) } : { results };
}

/** The skill's tools that share the most words with the query (listing order breaks ties). */
function matchingTools(entry: CatalogSkill, queryTerms: ReadonlySet<string>): SkillHit['tools'] {
  if (queryTerms.size === 0) return [];
  const scored: Array<{ name: string; description: string; overlap: number; index: number }> = [];
  searchableTools(entry).forEach((tool, index) => {
    let overlap = 0;
    for (const term of queryTerms) if (tool.terms.has(term)) overlap++;
    if (overlap > 0) scored.push({ name: tool.name, description: tool.description, overlap, index });
  });
  return scored
    .sort((a, b) => b.overlap - a.overlap || a.index - b.index)
    .slice(0, MAX_TOOLS_PER_HIT)
    .map(({ name, description }) => ({ name, description }));
}

// A cursor is the offset of the next result plus a hash of the query, so that it pages only its own query.
function writeCursor(offset: number, query: string): string {
  return Buffer.from(`${offset}:${queryHash(query)}`).toString('base64url');
}

function readCursor(cursor: string, query: string): number | undefined {
  const match = /^(\d{1,9}):([0-9a-z]+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (match?.[1] === undefined || match[2] !== queryHash(query)) return undefined;
  return Number(match[1]);
}

/** FNV-1a of the query, base 36: enough to tell a cursor of another query, not a secret. */
function queryHash(query: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < query.length; i++) {
    hash ^= query.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}
