/**
 * Whether a parsed JSON value nests deeper than `maxDepth` arrays and objects. It recurses at most
 * `maxDepth` calls deep whatever the value (a value too deep for recursion is what it looks for), stops at
 * the first value past the bound, and allocates nothing: a flat result costs one step per element.
 */
export function nestedDeeperThan(value: unknown, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (maxDepth <= 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (nestedDeeperThan(item, maxDepth - 1)) return true;
    return false;
  }
  const members = value as Record<string, unknown>;
  for (const key in members) if (nestedDeeperThan(members[key], maxDepth - 1)) return true;
  return false;
}
