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

const miniSearchOptions = {
  idField: 'id',
  fields: [...FIELDS],
  tokenize: searchWords,
  processTerm: searchTerm,
  searchOptions: { combineWith: 'OR' as const, bm25: BM25 },
};

/** The index build, pausing (yield) after each skill: run whole (buildSkillIndex) or in slices. */
function* indexSteps(entries: readonly CatalogSkill[]): Generator<void, SkillIndex, void> {
  const mini = new MiniSearch<SearchDocument>(miniSearchOptions);
  const byName = new Map<string, CatalogSkill>();
  for (const entry of entries) {
    byName.set(entry.skill.name, entry);
    mini.add(searchDocument(entry));
    yield;
  }
  const sorted = [...byName.keys()].sort(compareNames);
  return Object.freeze({
    size: byName.size,
    search: (query: SkillQuery) => runQuery(mini, byName, sorted, query),
  });
}

/** Builds an index in one piece (the CLI, tests). */
export function buildSkillIndex(entries: readonly CatalogSkill[]): SkillIndex {
  const steps = indexSteps(entries);
  for (let step = steps.next(); ; step = steps.next()) if (step.done === true) return step.value;
}

/** How long an index build computes before it lets other work run. */
const SLICE_MS = 10;

/** Builds an index in slices of about 10 ms with the event loop free in between (10,000 skills take ~2 s). */
export async function buildSkillIndexInSlices(entries: readonly CatalogSkill[]): Promise<SkillIndex> {
  const steps = indexSteps(entries);
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
  query: SkillQuery,
): SkillSearchPage | undefined {
  const text = query.query.trim();
  const offset = query.cursor === undefined ? 0 : readCursor(query.cursor, text);
  if (offset === undefined) return undefined;
  let ranked: Array<{ skill: string; score: number }>;
  if (text === LIST_ALL_QUERY) {
    ranked = sorted.map((skill) => ({ skill, score: 0 }));
  } else {
    // Ties break by name, so a catalog always answers a query the same way.
    ranked = mini
      .search(text)
      .map((r) => ({ skill: String(r.id), score: r.score }))
      .sort((a, b) => b.score - a.score || compareNames(a.skill, b.skill));
  }
  const page = ranked.slice(offset, offset + query.limit);
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
  return next < ranked.length ? { results, nextCursor: writeCursor(next, text) } : { results };
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
