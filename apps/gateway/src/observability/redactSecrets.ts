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

/**
 * Removes secrets from one serialized log line: the given values (configured tokens), what follows a
 * Bearer/Basic scheme, query strings, values of secret-named parameters and JSON fields, and well-known
 * token shapes.
 */
export function redactSecrets(line: string, secrets: readonly string[] = []): string {
  let out = line;
  for (const secret of secrets) {
    if (secret !== '' && out.includes(secret)) out = out.replaceAll(secret, REDACTED);
  }
  for (const [pattern, replacement] of TOKEN_SHAPES) out = out.replace(pattern, replacement);
  for (const pattern of SECRET_VALUES) out = out.replace(pattern, REDACTED);
  return out;
}
