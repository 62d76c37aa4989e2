const REDACTED = '[redacted]';

// Each pattern's first group is the part that says "a secret follows"; it is kept, the value is not.
// Quantifiers before a fixed part are bounded, so no line makes a pattern backtrack quadratically.
const TOKEN_SHAPES: readonly (readonly [RegExp, string])[] = [
  // Authorization values wherever they end up (an error message, a dumped object). Eight characters at
  // least, so that prose such as "missing bearer token" stays readable.
  [/\b(bearer\s+)[\w\-.~+/]{8,}=*/gi, `$1${REDACTED}`],
  [/\b(Basic\s+)[A-Za-z0-9+/]{8,}=*/g, `$1${REDACTED}`],
  // The query string of any path or URL in a message (Fastify's "Route GET:/x?access_token=… not found").
  // (The '?' comes first and the path is a lookbehind, so a long line without one costs one scan.)
  [/\?(?<=\/[\w\-./~%:@]*\?)[^\s"\\]*/g, ''],
  // Form-style parameters with a secret-sounding name that are not in a query string.
  [
    /([?&;][\w.-]{0,32}(?:token|secret|passw(?:or)?d|api[_-]?key|signature|sig|auth|code)[\w.-]{0,32}=)[^&#\s"\\]+/gi,
    `$1${REDACTED}`,
  ],
  // JSON string fields with a secret-sounding name, at any depth of a log record.
  [
    /("[\w.-]{0,32}(?:authorization|cookie|token|secret|passw(?:or)?d|api[_-]?key)[\w.-]{0,32}"\s*:\s*)"(?:[^"\\]|\\.)*"/gi,
    `$1"${REDACTED}"`,
  ],
];

// Values that are secrets by their shape alone; replaced whole.
const SECRET_VALUES: readonly RegExp[] = [
  /\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g, // JWT
  /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,})/g, // GitHub tokens
  /\bsk-[\w-]{20,}/g, // OpenAI / Anthropic style API keys
  /\bxox[abprs]-[\w-]{10,}/g, // Slack tokens
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key ids
];

/** Replaces secrets in one text: a log line, a span attribute, a kept query, an error shown on the operator page. */
export type SecretRedactor = (text: string) => string;

// A header value `Bearer abc…` is also echoed as just `abc…` ("invalid API key abc…"): the part after a scheme
// is a secret too.
const SCHEME_VALUE = /^\s*[A-Za-z][\w-]*\s+(\S{8,})\s*$/;

/**
 * The gateway's one redactor, over the configured secret values (tokens, OAuth client credentials, upstream
 * headers and env values, collector headers, source tokens; compose/secretValues.ts reads them once). It
 * removes each value (and the part of a `Scheme value` after its scheme), then what follows a Bearer/Basic
 * scheme, query strings, values of secret-named parameters and JSON fields, and well-known token shapes.
 */
export function createSecretRedactor(values: readonly string[]): SecretRedactor {
  const forms = values.flatMap((v) => [v, SCHEME_VALUE.exec(v)?.[1] ?? ''].filter((s) => s.trim() !== ''));
  // In a JSON log line a value with a quote, backslash or control character appears escaped.
  const secrets = [...new Set(forms.flatMap((v) => [v, JSON.stringify(v).slice(1, -1)]))]
    // Longest first, so a value that contains another is replaced whole.
    .sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const secret of secrets) {
      if (out.includes(secret)) out = out.replaceAll(secret, REDACTED);
    }
    for (const [pattern, replacement] of TOKEN_SHAPES) out = out.replace(pattern, replacement);
    for (const pattern of SECRET_VALUES) out = out.replace(pattern, REDACTED);
    return out;
  };
}
