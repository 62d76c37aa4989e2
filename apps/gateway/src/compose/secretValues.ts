import { createSecretRedactor, type SecretRedactor } from '../observability/redactSecrets.js';
import type { GatewaySettings } from './gatewaySettings.js';

/** The configured secrets, read from the environment once at start. */
export interface SecretValues {
  /**
   * The set values of every secret variable (`secretEnvNames`: tokens, OAuth client credentials, upstream
   * headers and env values, collector headers, source tokens): what upstream answers never pass on.
   */
  readonly values: readonly string[];
  /** The one redactor of those values: log lines, span attributes, kept queries, the operator page. */
  readonly redact: SecretRedactor;
}

/** Reads every configured secret's value once and builds the redactor every part that writes text uses. */
export function secretValues(
  settings: Pick<GatewaySettings, 'secretEnvNames'>,
  env: Readonly<Record<string, string | undefined>>,
): SecretValues {
  const values = settings.secretEnvNames.flatMap((name) => {
    const value = env[name];
    return value === undefined || value === '' ? [] : [value];
  });
  return { values, redact: createSecretRedactor(values) };
}
