// What a terminal acts on instead of printing: C0 (ESC starts OSC 52 clipboard writes and screen clears; CR
// and LF forge lines), DEL, C1 (0x9b is a one-byte CSI), the line and paragraph separators, and the bidi
// overrides that make a line read differently from what it holds.
const isControl = (code: number): boolean =>
  code < 0x20 ||
  (code >= 0x7f && code <= 0x9f) ||
  code === 0x2028 ||
  code === 0x2029 ||
  (code >= 0x202a && code <= 0x202e) ||
  (code >= 0x2066 && code <= 0x2069);

/** Replaces every control character by its visible `\uXXXX` form, so a log line cannot steer a terminal. */
function escapeControlCharacters(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isControl(code)) continue;
    out += `${text.slice(from, i)}\\u${code.toString(16).padStart(4, '0')}`;
    from = i + 1;
  }
  // Most lines hold none: they come back as they were, without a copy.
  return from === 0 ? text : out + text.slice(from);
}

/**
 * One serialized JSON log line with every control character inside its strings written as a `\u` escape
 * (JSON already escapes C0; DEL, C1 and the separators pass raw through JSON.stringify). The value the line
 * holds is unchanged: only how it is spelled.
 */
export function escapeJsonLine(line: string): string {
  const end = line.endsWith('\n') ? line.length - 1 : line.length;
  return escapeControlCharacters(line.slice(0, end)) + line.slice(end);
}

/**
 * A parsed log record whose every key and string value (at any depth) has its control characters made
 * visible: what the pretty format prints after JSON decoding has turned `\u001b` back into ESC.
 */
export function escapeRecord(value: unknown): unknown {
  if (typeof value === 'string') return escapeControlCharacters(value);
  if (Array.isArray(value)) return value.map(escapeRecord);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[escapeControlCharacters(key)] = escapeRecord(inner);
  return out;
}
