import type { UsageEvent } from './types.js';

/** Zero-result query texts kept at most: the most searched stay, the rarest make room. */
export const MAX_KEPT_QUERIES = 100;

/** Days of usage Redis keeps (one hash per UTC day, expiring after it). */
export const USAGE_DAYS = 30;

// Field names of a day's hash: `<event>\t<skill>\t<principal>`, and one for the zero-result searches.
// Event and skill names never hold a tab; a principal may, so it is everything after the second one.
/** The hash field of one count. */
export const usageField = (event: string, skill: string, principal: string): string =>
  `${event}\t${skill}\t${principal}`;

/** The field counting zero-result searches. */
export const EMPTY_SEARCH_FIELD = 'search_empty';

/** The parts of a usage field, or undefined for the zero-result field or a damaged one. */
export function parseUsageField(
  field: string,
): { readonly event: string; readonly skill: string; readonly principal: string } | undefined {
  const first = field.indexOf('\t');
  const second = field.indexOf('\t', first + 1);
  if (first < 0 || second < 0) return undefined;
  return {
    event: field.slice(0, first),
    skill: field.slice(first + 1, second),
    principal: field.slice(second + 1),
  };
}

/** Every usage event name, for reading them back as text. */
export const USAGE_EVENTS: ReadonlySet<string> = new Set<UsageEvent>([
  'info',
  'run_ok',
  'run_error',
  'run_limit',
  'read',
  'upstream',
]);
