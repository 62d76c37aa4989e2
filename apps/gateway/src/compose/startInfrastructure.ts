import { type ResolvedToken, resolveAuthTokens, type SkillgateConfig } from '@skillgate/config';
import type { Credentials } from '@skillgate/credentials';
import { createJobRegistry, type JobRegistry } from '@skillgate/jobs';
import type { ScriptRunner } from '@skillgate/runner';
import type { SessionStore } from '@skillgate/state';
import type { UpstreamPool } from '@skillgate/upstreams';
import type { FastifyBaseLogger } from 'fastify';
import { type CatalogSource, createCatalogSource } from '../core/catalogSource.js';
import type { LiveSessions } from '../legacy/liveSessions.js';
import { withUnlockSnapshots } from '../legacy/withUnlockSnapshots.js';
import { countJobEnd, createMetrics, type Metrics } from '../observability/metrics.js';
import type { Tracing } from '../observability/tracing.js';
import { createGatewayUpstreamPool } from '../upstreams/createGatewayUpstreamPool.js';
import type { GatewaySettings } from './gatewaySettings.js';
import { type LateBinding, lateBinding } from './lateBinding.js';
import type { SecretValues } from './secretValues.js';
import { startCredentials } from './startCredentials.js';
import { startScripts } from './startScripts.js';
import { startSharedState } from './startSharedState.js';
import { type GatewaySources, startSources } from './startSources.js';
import { startTracing } from './startTracing.js';

/** What replicas share (sessions, jobs, usage, events, rate limits), as startSharedState starts it. */
export type SharedState = Awaited<ReturnType<typeof startSharedState>>;

/** Options of startInfrastructure. */
export interface InfrastructureOptions {
  /** Passed whole to the config package's token check; no field of it is read here. */
  readonly config: SkillgateConfig;
  readonly settings: GatewaySettings;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: FastifyBaseLogger;
  readonly secrets: SecretValues;
  /** The live sessions, built last (compose/composeServing.ts): a stored session that ends closes them here. */
  readonly sessions: LateBinding<Pick<LiveSessions, 'close'>>;
}

/** What the gateway stands on: the outside world it reads and the processes and stores it holds open. */
export interface Infrastructure {
  /** Undefined when tracing is off: no request does any tracing work then. */
  readonly tracing: Tracing | undefined;
  readonly state: SharedState;
  /** Where sessions and unlocks are read (with Redis, through the unlock snapshots). */
  readonly store: SessionStore;
  readonly sources: GatewaySources;
  /** The configured bearer tokens, their variables read. */
  readonly tokens: readonly ResolvedToken[];
  readonly runner: ScriptRunner;
  readonly jobs: JobRegistry;
  readonly upstreams: UpstreamPool;
  /** Resolves when every upstream's first connect attempt ended. */
  readonly upstreamsStarted: Promise<void>;
  readonly catalogs: CatalogSource;
  readonly metrics: Metrics;
  /** The configured secrets, read once, and the one redactor of them. */
  readonly secrets: SecretValues;
  /** Each principal's credentials behind the gateway (docs/credentials.md); undefined when none is configured. */
  readonly credentials: Credentials | undefined;
}

/**
 * Starts what the gateway stands on, in the order a failed start needs: tracing, the shared state, the
 * sources (a failure closes the state), the token variables, the script runner, the upstreams (connecting in
 * the background) and the first catalog; then the stores, jobs and metrics over them.
 */
export async function startInfrastructure(options: InfrastructureOptions): Promise<Infrastructure> {
  const { config, settings, env, log, secrets } = options;
  const tracing = startTracing(settings.tracing, env, secrets.redact);
  // state.backend picks where sessions live: this process, or Redis shared by replicas (docs/scale-out.md).
  const state = await startSharedState({
    ...(tracing === undefined ? {} : { tracing }),
    settings: settings.state,
    env,
    log,
    onSessionEnded: (id, why) => void options.sessions.current?.close(id, why),
  });
  // Git and archive sources are fetched and verified before the first catalog: one that cannot be served
  // fails the start, naming it (docs/sources.md). Without a lock file, replicas serve the commit the first
  // of them resolved (the state backend's pins).
  const sources = await startSources({ settings: settings.sources, env, log, shared: state.pins }).catch(
    async (error: unknown) => {
      await state.close();
      throw error;
    },
  );
  // The config package's own check of every token variable (it names the unset ones): the config is passed
  // whole, no field of it is read here.
  const tokens = resolveAuthTokens(config, env);
  // Built before the upstreams: an upstream with `auth` lists its tools with a credential from it. Its
  // events are counted in the metrics, made further down.
  const metricsOfCredentials = lateBinding<Metrics>('the metrics');
  const credentials = startCredentials({
    settings,
    env,
    log,
    metrics: { inc: (...args) => metricsOfCredentials.get().inc(...args) },
    redis: state.redis,
  });
  const { runner, sandbox } = await startScripts({
    scripts: settings.scripts,
    sandbox: settings.sandbox,
    secretEnvNames: settings.secretEnvNames,
    env,
    log,
    host: settings.server.host,
  });
  // Upstreams connect in the background: the gateway listens at once, serving each upstream as `connecting`
  // until its first attempt ends (one that never answers cannot hold the start); its tools arrive with a
  // catalog rebuild, and a dead one is listed as down and retried (docs/upstreams.md).
  const upstreams = createGatewayUpstreamPool({
    upstreams: settings.upstreams,
    env,
    log,
    secrets: secrets.values,
    bwrap: sandbox.mode === 'bwrap' ? sandbox.bwrapPath : undefined,
    ...(credentials === undefined
      ? {}
      : { connectionHeaders: (upstream: string) => credentials.discoveryHeaders(upstream) }),
  });
  const catalogs = await createCatalogSource(settings.catalog, {
    upstreams: () => upstreams.snapshots(),
    onBuilding: (skills) => log.info({ skills }, 'catalog reload: skills read, building the catalog'),
    sourceRoots: () => sources.roots(),
  });
  sources.follow(() => catalogs.reload());
  for (const problem of catalogs.current.problems) {
    log[problem.severity === 'error' ? 'error' : 'warn']({ problem }, `skill problem: ${problem.reason}`);
  }

  // With Redis, a request reads its unlocks with its session (one round trip); memory needs no snapshot.
  const store =
    state.backend === 'redis'
      ? withUnlockSnapshots(state.sessions, settings.state.sessions.maxSessions)
      : state.sessions;
  // Metrics read the job registry's figures, and the registry counts each job's end in the metrics.
  const jobsOfMetrics = lateBinding<JobRegistry>('the job registry');
  const metrics = metricsOfCredentials.bind(
    createMetrics({
      localJobsRunning: () => jobsOfMetrics.get().localRunning,
      upstreams: () => upstreams.snapshots(),
      sharedFigures: async () => {
        const [sessionsOpen, jobsRunning] = await Promise.all([
          store.count(),
          jobsOfMetrics.get().countRunning(),
        ]);
        return { sessionsOpen, jobsRunning };
      },
    }),
  );
  const jobs = jobsOfMetrics.bind(
    createJobRegistry({
      runner,
      store: state.jobs,
      defaultTailLines: settings.scripts.defaultTailLines,
      onError: (error) => log.warn({ err: error }, 'async job record not written'),
      onEnd: (end) => countJobEnd(metrics, end),
    }),
  );
  // Started once the metrics are bound: an upstream with `auth` fetches its listing credential at once, and
  // that event is counted (started before the catalog, a token fetched while it was built found no metrics:
  // "the metrics is read before it is bound", the upstream down for a retry).
  const upstreamsStarted = upstreams.start();
  return {
    tracing,
    state,
    store,
    sources,
    tokens,
    runner,
    jobs,
    upstreams,
    upstreamsStarted,
    catalogs,
    metrics,
    secrets,
    credentials,
  };
}
