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
    out.push(raw.toLowerCase());
    const parts = raw.split(CAMEL);
    if (parts.length > 1) for (const part of parts) out.push(part.toLowerCase());
  }
  return out;
}

/** A word as the index keeps it: stop words dropped, the rest stemmed (Porter), so `deploys` finds `deploy`. */
export function searchTerm(word: string): string | null {
  return STOP_WORDS.has(word) ? null : stemmer(word);
}

/** The distinct index terms of a text. */
export function searchTerms(text: string): Set<string> {
  const terms = new Set<string>();
  for (const word of searchWords(text)) {
    const term = searchTerm(word);
    if (term !== null) terms.add(term);
  }
  return terms;
}
