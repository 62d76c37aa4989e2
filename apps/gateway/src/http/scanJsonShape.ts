/** Bounds on the shape of one request body (server.max_json_depth, server.max_json_keys). */
export interface JsonBounds {
  readonly maxDepth: number;
  /** Object keys and array elements, counted over the whole body by their separators. */
  readonly maxKeys: number;
}

/** What scanJsonShape found: the bound a body passes (if any), and its top-level id and method. */
export interface JsonShape {
  readonly exceeded?: string;
  readonly id?: string | number;
  readonly method?: string;
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_OBJECT = 123;
const OPEN_ARRAY = 91;
const CLOSE_OBJECT = 125;
const CLOSE_ARRAY = 93;

const isNumberStart = (c: number): boolean => c === 45 || (c >= 48 && c <= 57);
const isNumberChar = (c: number): boolean =>
  isNumberStart(c) || c === 43 || c === 46 || c === 69 || c === 101;

/**
 * Measures a JSON text's nesting and width in one pass over its characters, before it is parsed: parsing a
 * 60,000-key object alone costs V8 about 200 ms, and validating it the SDK as much again, so a bound checked
 * after JSON.parse would come too late. Also picks up the top-level `id` and `method`, so that a refused
 * request is answered with its id. Does not validate the JSON (JSON.parse does that when the shape passes).
 */
export function scanJsonShape(text: string, bounds: JsonBounds): JsonShape {
  let depth = 0;
  let keys = 0;
  let exceeded: string | undefined;
  let topIsObject = false;
  let expectKey = false;
  let pendingKey: string | undefined;
  let id: string | number | undefined;
  let method: string | undefined;
  const atTop = () => depth === 1 && topIsObject;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      for (i += 1; i < text.length; i += 1) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i += 1;
        else if (d === QUOTE) break;
      }
      i += 1;
      if (atTop()) {
        const value = parseString(text.slice(start, i));
        if (expectKey) {
          pendingKey = value;
          expectKey = false;
        } else {
          if (pendingKey === 'id' && value !== undefined) id = value;
          if (pendingKey === 'method' && value !== undefined) method = value;
          pendingKey = undefined;
        }
      }
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (atTop()) pendingKey = undefined;
      depth += 1;
      if (depth === 1) {
        topIsObject = c === OPEN_OBJECT;
        expectKey = topIsObject;
      }
      if (exceeded === undefined && depth > bounds.maxDepth) {
        exceeded = `nested deeper than ${bounds.maxDepth} levels (server.max_json_depth)`;
      }
      keys += 1;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth -= 1;
    } else if (c === COMMA) {
      keys += 1;
      if (atTop()) {
        expectKey = true;
        pendingKey = undefined;
      }
    } else if (atTop() && pendingKey === 'id' && isNumberStart(c)) {
      const start = i;
      while (i < text.length && isNumberChar(text.charCodeAt(i))) i += 1;
      id = Number(text.slice(start, i));
      pendingKey = undefined;
      continue;
    }
    if (exceeded === undefined && keys > bounds.maxKeys) {
      exceeded = `more than ${bounds.maxKeys} keys and array elements (server.max_json_keys)`;
    }
    i += 1;
  }
  return {
    ...(exceeded === undefined ? {} : { exceeded }),
    ...(id === undefined ? {} : { id }),
    ...(method === undefined ? {} : { method }),
  };
}

function parseString(literal: string): string | undefined {
  try {
    const value: unknown = JSON.parse(literal);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * False when `text` surely passes both bounds, so scanJsonShape need not walk it: every level opens with `{`
 * or `[` and every key or element but the first follows a `,`, so a body with no more of these characters
 * (in strings too) than either bound passes both — as almost every request does. Counting them is a native
 * search, a small share of scanJsonShape's character walk.
 */
export function mayExceedJsonBounds(text: string, bounds: JsonBounds): boolean {
  const limit = Math.min(bounds.maxDepth, bounds.maxKeys);
  let count = 0;
  for (const char of ['{', '[', ',']) {
    for (let at = text.indexOf(char); at !== -1; at = text.indexOf(char, at + 1)) {
      count += 1;
      if (count > limit) return true;
    }
  }
  return false;
}
