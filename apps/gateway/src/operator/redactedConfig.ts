import type { SecretRedactor } from '../observability/redactSecrets.js';

/**
 * The effective config as the page shows it: pretty JSON through the logger's redaction (every configured
 * secret value, secret-named fields such as `token_sha256` or `headers_from_env` names, query strings of URLs),
 * rendered once at start since the config is frozen.
 */
export function redactedConfig(config: unknown, redact: SecretRedactor): string {
  return redact(JSON.stringify(config, null, 2));
}
