import { stemmer } from 'stemmer';

// Words that carry no meaning for finding a skill; dropped from documents and queries alike.
const STOP_WORDS: ReadonlySet<string> = new Set(
  'a an and are as at be by can for from has have how i in into is it its me my of on or our please that the their them then this to use using want we what when which with you your'.split(
    ' ',
  ),
);

// One run of letters or digits; everything else separates words (snake_case, kebab-case, paths, punctuation).
const WORD = /[\p{L}\p{N}]+/gu;
// camelCase and PascalCase boundaries: fooBar -> foo Bar, HTTPServer -> HTTP Server.
const CAMEL = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;

/**
 * The words of a text for the search index: every run of letters and digits, lowercased, and when it is
 * written in camelCase also its parts (`getWeather` -> getweather, get, weather), so that a query finds
 * identifiers however they are spelled.
 */
export function searchWords(text: string): string[] {
  const out: string[] = [];
  for (const [raw] of text.matchAll(WORD)) {
    const lower = raw.toLowerCase();
    out.push(lower);
    // Only a word with a capital after its first letter can be camelCase: most are not.
    if (lower === raw || !HAS_INNER_CAPITAL.test(raw)) continue;
    const parts = raw.split(CAMEL);
    if (parts.length > 1) for (const part of parts) out.push(part.toLowerCase());
  }
  return out;
}

const HAS_INNER_CAPITAL = /.\p{Lu}/u;

/** A word as the index keeps it: stop words dropped, the rest stemmed (Porter), so `deploys` finds `deploy`. */
export function searchTerm(word: string): string | null {
  if (STOP_WORDS.has(word)) return null;
  let term = stems.get(word);
  if (term === undefined) {
    term = stemmer(word);
    // Bounded: a vocabulary larger than this starts over (stemming again is only slower).
    if (stems.size >= MAX_STEMS) stems.clear();
    stems.set(word, term);
  }
  return term;
}

/**
 * A word of a query as the index keeps it. A stem already known (every word of an indexed skill is) is
 * looked up; another is stemmed and not remembered, so that queries of made-up words, however many, never
 * grow the cache: it holds the catalogs' vocabulary, not what callers send.
 */
export function queryTerm(word: string): string | null {
  if (STOP_WORDS.has(word)) return null;
  return stems.get(word) ?? stemmer(word);
}

// Stemming is most of the cost of indexing a skill, and words repeat across skills and queries.
const stems = new Map<string, string>();
const MAX_STEMS = 100_000;

/** The distinct index terms of a text. */
export function searchTerms(text: string): Set<string> {
  const terms = new Set<string>();
  for (const word of searchWords(text)) {
    const term = searchTerm(word);
    if (term !== null) terms.add(term);
  }
  return terms;
}
