/**
 * Whether a parsed JSON value nests deeper than `maxDepth` arrays and objects. Walked with a stack of its
 * own (a value that is too deep for recursion is exactly what it looks for), and stops at the first value
 * past the bound; a flat result costs one step per array element and object member.
 */
export function nestedDeeperThan(value: unknown, maxDepth: number): boolean {
  const pending: unknown[] = [value];
  const depths: number[] = [0];
  while (pending.length > 0) {
    const next = pending.pop();
    const depth = depths.pop() ?? 0;
    if (typeof next !== 'object' || next === null) continue;
    if (depth >= maxDepth) return true;
    const children = Array.isArray(next) ? next : Object.values(next);
    for (const child of children) {
      // Scalars need no step of their own.
      if (typeof child === 'object' && child !== null) {
        pending.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
