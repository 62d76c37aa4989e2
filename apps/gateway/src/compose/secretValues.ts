import type { GatewaySettings } from './gatewaySettings.js';
import { sourceTokens } from './sourcesOptions.js';

/** The values of the configured secrets, read from the environment once at start. */
export interface SecretValues {
  /** The set values of `secretEnvNames` (tokens, OAuth credentials, collector headers). */
  readonly env: readonly string[];
  /** Those and the source fetch tokens: everything the gateway's log redacts. */
  readonly logged: readonly string[];
}

/** Reads every configured secret's value once; the parts that redact receive these lists. */
export function secretValues(
  settings: Pick<GatewaySettings, 'secretEnvNames' | 'sources'>,
  env: Readonly<Record<string, string | undefined>>,
): SecretValues {
  const values = settings.secretEnvNames.flatMap((name) => env[name] ?? []);
  return { env: values, logged: [...values, ...sourceTokens(settings.sources, env)] };
}
