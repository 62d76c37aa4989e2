/** What a configured secret is replaced with in anything an upstream returns. */
const REDACTED = '[redacted]';

/** Replaces configured secret values in what upstreams return, before a caller or a status sees it. */
export interface SecretScrubber {
  /** The string with every secret replaced. */
  text(value: string): string;
  /** A copy of a JSON value with every secret replaced in its strings (keys included); the same value when none occurs. */
  json<T>(value: T): T;
}

// A header value `Bearer abc…` is also echoed as just `abc…`: the part after a scheme is a secret too.
const SCHEME_VALUE = /^\s*[A-Za-z][\w-]*\s+(\S{8,})\s*$/;

/**
 * A scrubber of the given secret values (upstream header values, env_from values, the gateway's tokens).
 * A JSON value is serialized once to check (raw and JSON-escaped forms), and walked only when a secret
 * occurs in it, so an answer without secrets costs one scan per secret.
 */
export function createSecretScrubber(values: readonly string[]): SecretScrubber {
  const secrets = [
    ...new Set(values.flatMap((v) => [v, SCHEME_VALUE.exec(v)?.[1] ?? ''].filter((s) => s.trim() !== ''))),
  ]
    // Longest first, so a value that contains another is replaced whole.
    .sort((a, b) => b.length - a.length);
  const escaped = secrets.map((s) => JSON.stringify(s).slice(1, -1));
  const text = (value: string): string => {
    let out = value;
    for (const secret of secrets) if (out.includes(secret)) out = out.replaceAll(secret, REDACTED);
    return out;
  };
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [text(k), walk(v)]));
    }
    return value;
  };
  return {
    text,
    json<T>(value: T): T {
      if (secrets.length === 0) return value;
      const serialized = JSON.stringify(value) ?? '';
      if (!escaped.some((s) => serialized.includes(s))) return value;
      return walk(value) as T;
    },
  };
}
