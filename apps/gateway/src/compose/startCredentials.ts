import { ConfigError } from '@skillgate/config';
import { type Credentials, CredentialsError, createCredentials } from '@skillgate/credentials';
import type { RedisConnection } from '@skillgate/state';
import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../observability/metrics.js';
import type { GatewaySettings } from './gatewaySettings.js';

/** Options of startCredentials. */
export interface StartCredentialsOptions {
  readonly settings: Pick<GatewaySettings, 'credentials' | 'auth'>;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: FastifyBaseLogger;
  readonly metrics: Pick<Metrics, 'inc'>;
  /** The shared state's Redis connection: the store of `credentials.store: redis` (auto with a Redis backend). */
  readonly redis: RedisConnection | undefined;
}

/**
 * The per-principal and gateway credentials (docs/credentials.md), or undefined when none is configured. Its
 * keys are read now: a missing or malformed key stops the start (CONFIG_INVALID names `credentials.keys`).
 */
export function startCredentials(options: StartCredentialsOptions): Credentials | undefined {
  try {
    return create(options);
  } catch (error) {
    // An unset or malformed key is the operator's config, said like any other config error (one line, exit 1).
    if (!(error instanceof CredentialsError) || error.code !== 'KEY_INVALID') throw error;
    throw new ConfigError('CONFIG_INVALID', `credentials.keys: ${error.message}`, {
      issues: [
        { path: 'credentials.keys', message: `${error.message} (docs/credentials.md, "Keys and rotation")` },
      ],
      cause: error,
    });
  }
}

function create(options: StartCredentialsOptions): Credentials | undefined {
  const { settings, log, metrics } = options;
  if (settings.credentials === undefined) return undefined;
  const oauth = settings.auth.oauth;
  return createCredentials({
    settings: settings.credentials,
    env: options.env,
    ...(options.redis === undefined ? {} : { redis: options.redis }),
    // Codes and ids only: the package never puts a value in an entry (the log redacts secrets on top).
    log: (entry) => log[entry.level]({ credentials: entry.code, provider: entry.provider }, entry.message),
    onEvent: (event) =>
      metrics.inc('skillgate_credential_events_total', {
        kind: event.kind,
        provider: event.provider,
        outcome: event.outcome,
      }),
    // A sign-in on the connect page names the principal the gateway's own OAuth rule would (auth/oauthVerifier.ts).
    ...(oauth === undefined
      ? {}
      : {
          loginPrincipal: (claims) => {
            const value = claims[oauth.principalClaim];
            const name = typeof value === 'number' ? String(value) : value;
            return typeof name === 'string' && name !== '' ? `oauth:${oauth.issuer}#${name}` : undefined;
          },
        }),
  });
}
