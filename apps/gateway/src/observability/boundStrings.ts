/** Past this nesting a value is replaced whole: what is stored or logged never needs deeper structure. */
const MAX_DEPTH = 32;

const cut = (text: string, maxChars: number): string =>
  text.length <= maxChars ? text : `${text.slice(0, maxChars)}…[${text.length - maxChars} more chars]`;

/**
 * A copy of a client-supplied value whose every string (keys too) is at most `maxChars` characters plus a
 * note saying how many were cut, for what the gateway stores or logs (docs/limits.md, "Client strings"): a
 * 1 MB client name would otherwise be kept in every session record and written in every log line about it.
 */
export function boundStrings<T>(value: T, maxChars: number, depth = 0): T {
  if (typeof value === 'string') return cut(value, maxChars) as T;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[nested too deep]' as T;
  if (Array.isArray(value)) return value.map((item) => boundStrings(item, maxChars, depth + 1)) as T;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value))
    copy[cut(key, maxChars)] = boundStrings(item, maxChars, depth + 1);
  return copy as T;
}
