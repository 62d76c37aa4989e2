/** Bounds on the shape of one parsed request body (server.max_json_depth, server.max_json_keys). */
export interface JsonBounds {
  readonly maxDepth: number;
  /** Object keys and array elements, counted over the whole body. */
  readonly maxKeys: number;
}

/**
 * What a parsed body exceeds, if anything: nesting deeper than `maxDepth` or more than `maxKeys` keys and
 * array elements in all. Walks with its own stack (a body of 5,000 nested arrays would overflow the call
 * stack of a recursive walk, as it did the SDK's validation) and stops at the first bound passed, so a
 * refused body costs at most `maxKeys` steps after JSON.parse.
 */
export function exceedsJsonBounds(value: unknown, bounds: JsonBounds): string | undefined {
  const stack: Array<{ readonly value: unknown; readonly depth: number }> = [{ value, depth: 0 }];
  let keys = 0;
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const item = next.value;
    if (item === null || typeof item !== 'object') continue;
    const depth = next.depth + 1;
    if (depth > bounds.maxDepth)
      return `nested deeper than ${bounds.maxDepth} levels (server.max_json_depth)`;
    const children = Array.isArray(item) ? item : Object.values(item);
    keys += children.length;
    if (keys > bounds.maxKeys) {
      return `more than ${bounds.maxKeys} keys and array elements (server.max_json_keys)`;
    }
    for (const child of children)
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth });
  }
  return undefined;
}
