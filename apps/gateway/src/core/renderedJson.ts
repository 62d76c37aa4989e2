// Values written as JSON once (docs/protocol-eras.md, "Hot paths"): the catalog's tool definitions, a skill's
// instructions as get_info returns them, skills and prompts as the Skills extension serves them. They are
// the same for every request until the catalog changes, and writing a few KB of Markdown as a JSON string is
// most of what such a request costs. A value registered here is deep-frozen, so its JSON can never go stale;
// an unregistered value is written by JSON.stringify each time. The JSON is exactly JSON.stringify's.

/** Registered values, and their JSON once first written. */
const rendered = new WeakMap<object, string | null>();

/**
 * Deep-freezes `value` and registers it with every object inside it: the JSON of each is written once, when
 * first asked for (a result is often written key by key, objectJsonOf).
 */
export function renderOnce<T extends object>(value: T): T {
  if (rendered.has(value)) return value;
  Object.freeze(value);
  rendered.set(value, null);
  // JSON values only: no cycles, no typed arrays (which cannot be frozen).
  for (const child of Object.values(value))
    if (child !== null && typeof child === 'object') renderOnce(child);
  return value;
}

/** Whether `value` was registered with renderOnce. */
export function isRenderedOnce(value: unknown): value is object {
  return value !== null && typeof value === 'object' && rendered.has(value);
}

/** JSON.stringify(value), from the kept JSON when the value was registered with renderOnce. */
export function jsonOf(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const kept = rendered.get(value);
  if (kept === undefined) return JSON.stringify(value);
  if (kept !== null) return kept;
  const json = JSON.stringify(value);
  rendered.set(value, json);
  return json;
}

/**
 * JSON.stringify(object) for a plain object (no toJSON), written key by key so that registered values in it
 * are not written again: the same keys in the same order, undefined, function and symbol values left out.
 */
export function objectJsonOf(object: Readonly<Record<string, unknown>>): string {
  if (rendered.has(object)) return jsonOf(object);
  let json = '';
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    json += `${json === '' ? '' : ','}${JSON.stringify(key)}:${jsonOf(value)}`;
  }
  return `{${json}}`;
}
