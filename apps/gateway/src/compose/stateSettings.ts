import type { SkillgateConfig } from '@skillgate/config';

/** What replicas share (`state`, `sessions`, `jobs`, `rate_limit`; docs/scale-out.md). */
export interface StateSettings {
  readonly backend: SkillgateConfig['state']['backend'];
  /** The variable holding the Redis URL (`state.redis_url_env`). */
  readonly redisUrlEnv: string;
  readonly keyPrefix: string;
  readonly sessions: {
    readonly ttlMs: number;
    readonly maxSessions: number;
    readonly maxPerPrincipal: number;
  };
  readonly jobs: { readonly ttlMs: number; readonly maxRunningPerOwner: number };
  readonly rateLimit: { readonly requestsPerSecond: number; readonly burst: number };
}

/** The shared-state sections as settings. */
export function stateSettings(config: SkillgateConfig): StateSettings {
  const { state, sessions, jobs, rate_limit } = config;
  return {
    backend: state.backend,
    redisUrlEnv: state.redis_url_env,
    keyPrefix: state.key_prefix,
    sessions: {
      ttlMs: sessions.ttl_seconds * 1000,
      maxSessions: sessions.max_sessions,
      maxPerPrincipal: sessions.max_per_principal,
    },
    jobs: { ttlMs: jobs.ttl_seconds * 1000, maxRunningPerOwner: jobs.max_per_session },
    rateLimit: { requestsPerSecond: rate_limit.requests_per_second, burst: rate_limit.burst },
  };
}
