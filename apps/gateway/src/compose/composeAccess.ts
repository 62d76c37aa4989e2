import type { ResolvedToken } from '@skillgate/config';
import type { SessionStore } from '@skillgate/state';
import type { FastifyBaseLogger } from 'fastify';
import { type AccessPolicy, createAccessPolicy } from '../auth/accessPolicy.js';
import { type BearerAuth, createBearerAuth } from '../auth/bearerAuth.js';
import { createFailedAttempts, type FailedAttempts } from '../auth/failedAttempts.js';
import { createOriginPolicy, type OriginPolicy } from '../auth/originPolicy.js';
import { createDisclosurePolicy, type DisclosurePolicy } from '../disclosure/disclosurePolicy.js';
import { createOperatorAccess, type OperatorAccess } from '../operator/operatorAccess.js';
import { createOAuthResource } from './createOAuthResource.js';
import type { GatewaySettings } from './gatewaySettings.js';
import { adminAccessOf } from './operatorSettings.js';

/** Options of composeAccess. */
export interface AccessOptions {
  readonly settings: Pick<GatewaySettings, 'auth' | 'disclosure' | 'guard' | 'http'>;
  readonly tokens: readonly ResolvedToken[];
  /** Where the disclosure rule reads unlocks. */
  readonly store: Pick<SessionStore, 'unlocked'>;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: FastifyBaseLogger;
  /** Least time between OAuth key-set refetches on an unknown kid (tests shorten it). */
  readonly oauthKeyRefetchIntervalMs: number | undefined;
}

/** Who a request comes from and what it may see and call. */
export interface Access {
  readonly policy: AccessPolicy;
  /** The bearer check of every request: static tokens, then OAuth. */
  readonly bearerAuth: BearerAuth;
  /** Failed token checks per client address (also the tokens typed into the connect page). */
  readonly failedAttempts: FailedAttempts;
  readonly originPolicy: OriginPolicy;
  /** The one rule of who sees and may call what. */
  readonly disclosure: DisclosurePolicy;
  /** Who may read /readyz's details and /metrics on the MCP port: whoever may open the operator page. */
  readonly readinessAccess: OperatorAccess;
}

/** Builds the access parts: the token policy, OAuth (its keys fetched now), the bearer check, disclosure. */
export function composeAccess(options: AccessOptions): Access {
  const { settings, log } = options;
  const policy = createAccessPolicy({
    tokens: options.tokens,
    allowAnonymous: settings.auth.allowAnonymous,
    anonymousSkills: settings.auth.anonymousSkills,
    onAuthorizationIgnored: () =>
      log.warn('a request sent an Authorization header, but no auth tokens are configured: it is ignored'),
  });
  const oauth = createOAuthResource({
    oauth: settings.auth.oauth,
    env: options.env,
    keyRefetchIntervalMs: options.oauthKeyRefetchIntervalMs,
    onFetchFailed: (error) => log.warn({ err: error }, 'OAuth issuer metadata or keys could not be fetched'),
  });
  // The keys are fetched now, so the first token does not wait; a failure is logged and retried on use.
  if (oauth !== undefined) void oauth.verifier.warmUp();
  // One budget per address for every check that can cost the authorization server (or guess a token).
  const failedAttempts = createFailedAttempts({ perMinute: settings.auth.failedAttemptsPerMinute });
  const bearerAuth = createBearerAuth({
    policy,
    oauth,
    allowAnonymous: settings.auth.allowAnonymous,
    anonymousSkills: settings.auth.anonymousSkills,
    failedAttempts,
  });
  const disclosure = createDisclosurePolicy({
    access: policy,
    store: options.store,
    ...settings.disclosure,
    // Once per (catalog, mode, allow-list): a reload logs it again if it still applies.
    onSwitchToSearch: (event) =>
      log.info(
        {
          principal: event.principal,
          configured: event.configured,
          listed: event.listed,
          max_listed: event.maxListed,
        },
        `principal "${event.principal}" would list ${event.listed} tools at first (tools.max_listed ${event.maxListed}): it gets search instead of ${event.configured}`,
      ),
  });
  const adminAccess = adminAccessOf(settings.auth);
  if (settings.http.metricsPort === undefined && !adminAccess.anonymousOpen) {
    log.info(
      { metrics: 'admin_token' },
      '/metrics on the MCP port answers only an admin token (auth is configured); set observability.metrics_port to scrape without one',
    );
  }
  return {
    policy,
    bearerAuth,
    failedAttempts,
    originPolicy: createOriginPolicy(settings.guard),
    disclosure,
    // /readyz's upstreams, sources and missing roots, and /metrics on the MCP port (skill and upstream names),
    // only to whoever may open the operator page.
    readinessAccess: createOperatorAccess(adminAccess),
  };
}
