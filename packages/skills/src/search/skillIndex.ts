import type { CatalogSkill } from '../catalog/catalogTypes.js';
import {
  type AllowListView,
  allowListView,
  type QueryTerms,
  queryTerms,
  type Ranking,
  type RankOptions,
  rankDocuments,
  rankingScratch,
} from './bm25Ranking.js';
import { type Postings, postingsSteps } from './postings.js';
import { searchableTools } from './searchDocument.js';

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

/** A search index over one catalog, searched as any allow-list of it. */
export interface SkillIndex {
  /** How many skills it holds (the whole catalog). */
  readonly size: number;
  /**
   * The ranked page among the `allowed` skills (undefined: all), or undefined when `cursor` is not one this
   * index gave for this query. Every score is what an index of only the allowed skills would give: a hidden
   * skill never changes a result, its order or a score.
   */
  search(query: SkillQuery, allowed?: ReadonlySet<string>): SkillSearchPage | undefined;
}

/** The query that lists every skill in name order. */
export const LIST_ALL_QUERY = '*';

/**
 * How many distinct index terms a query has: what a search's work grows with (each term's postings are read
 * once), so search_skills charges the rate limit by it (docs/limits.md).
 */
export function queryTermCount(query: string): number {
  return queryTerms(query).distinct.length;
}

const MAX_TOOLS_PER_HIT = 5;

/**
 * A query term found in more than this share of the allowed skills does not choose candidates: only skills
 * that hold a rarer term of the query are scored (by every term), unless the query has no rarer term
 * (docs/decisions.md).
 */
const MAX_TERM_SHARE = 0.1;

/** Options of an index build. */
export interface SkillIndexOptions {
  /** Share of skills above which a query term does not choose candidates (default 0.1; 1: every term does). */
  readonly maxTermShare?: number;
}

/** The index build, pausing (yield) after each skill: run whole (buildSkillIndex) or in slices. */
function* indexSteps(
  entries: readonly CatalogSkill[],
  options: SkillIndexOptions,
): Generator<void, SkillIndex, void> {
  const postings = yield* postingsSteps(entries);
  const scratch = rankingScratch(entries.length);
  const everyone = allowListView(postings, undefined);
  // One view per allow-list Set, held by the Set: the access policy keeps one per grant set and catalog.
  const views = new WeakMap<ReadonlySet<string>, AllowListView>();
  const viewOf = (allowed: ReadonlySet<string> | undefined): AllowListView => {
    if (allowed === undefined) return everyone;
    let view = views.get(allowed);
    if (view === undefined) {
      view = allowListView(postings, allowed);
      views.set(allowed, view);
    }
    return view;
  };
  const maxTermShare = options.maxTermShare ?? MAX_TERM_SHARE;
  return Object.freeze({
    size: entries.length,
    search: (query: SkillQuery, allowed?: ReadonlySet<string>) =>
      runQuery({ postings, scratch, view: viewOf(allowed), maxTermShare }, query),
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

function runQuery(options: RankOptions, query: SkillQuery): SkillSearchPage | undefined {
  const { postings, view } = options;
  const text = query.query.trim();
  const offset = query.cursor === undefined ? 0 : readCursor(query.cursor, text);
  if (offset === undefined) return undefined;
  let page: Array<{ doc: number; score: number }>;
  let total: number;
  let terms: QueryTerms | undefined;
  if (text === LIST_ALL_QUERY) {
    page = listPage(postings, view, offset, query.limit);
    total = view.count;
  } else {
    terms = queryTerms(text);
    const ranking = rankDocuments(terms, options);
    total = ranking.docs.length;
    page = rankedPage(postings, ranking, offset, query.limit);
  }
  const wanted = new Set(terms?.distinct);
  const results: SkillHit[] = [];
  for (const { doc, score } of page) {
    const entry = postings.entries[doc];
    if (entry === undefined) continue;
    results.push({
      skill: entry.skill.name,
      description: entry.skill.description,
      score: Math.round(score * 1000) / 1000,
      tools: matchingTools(entry, wanted),
    });
  }
  const next = offset + page.length;
  return next < total ? { results, nextCursor: writeCursor(next, text) } : { results };
}

/** One page of the allowed skills in name order. */
function listPage(postings: Postings, view: AllowListView, offset: number, limit: number) {
  const page: Array<{ doc: number; score: number }> = [];
  let seen = 0;
  for (const doc of postings.byName) {
    if (view.mask !== undefined && view.mask[doc] !== 1) continue;
    if (seen++ < offset) continue;
    page.push({ doc, score: 0 });
    if (page.length === limit) break;
  }
  return page;
}

/**
 * The page of a ranking: by score, ties by name (so a catalog always answers a query the same way). Only
 * the head up to the page's end is ordered: a bounded insertion for the usual first pages, a sort past them.
 */
function rankedPage(postings: Postings, ranking: Ranking, offset: number, limit: number) {
  const { docs, scores } = ranking;
  const { nameRank } = postings;
  const before = (a: number, b: number) =>
    (scores[a] ?? 0) > (scores[b] ?? 0) ||
    ((scores[a] ?? 0) === (scores[b] ?? 0) && (nameRank[docs[a] ?? 0] ?? 0) < (nameRank[docs[b] ?? 0] ?? 0));
  const end = Math.min(docs.length, offset + limit);
  let head: number[];
  if (end <= MAX_INSERTION_HEAD) {
    head = [];
    for (let h = 0; h < docs.length; h++) {
      if (head.length === end && !before(h, head[end - 1] ?? 0)) continue;
      let at = head.length === end ? end - 1 : head.length;
      while (at > 0 && before(h, head[at - 1] ?? 0)) {
        head[at] = head[at - 1] ?? 0;
        at--;
      }
      head[at] = h;
    }
  } else {
    head = Array.from(docs.keys()).sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  }
  return head.slice(offset, end).map((h) => ({ doc: docs[h] ?? 0, score: scores[h] ?? 0 }));
}

/** Past this page end a ranking is sorted whole instead. */
const MAX_INSERTION_HEAD = 64;

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
