import type { SkillgateConfig } from '@skillgate/config';
import type { ScriptRunner } from '@skillgate/runner';
import type { EventBus, JobRegistry, SessionStore, StateEvent } from '@skillgate/state';
import type { FastifyBaseLogger } from 'fastify';
import type { AccessPolicy } from './auth/accessPolicy.js';
import type { DisclosurePolicy } from './disclosure/disclosurePolicy.js';
import type { Metrics } from './observability/metrics.js';
import type { RecentCalls } from './observability/recentCalls.js';
import type { CatalogSource } from './reload/catalogSource.js';
import type { InFlightCalls } from './tools/inFlightCalls.js';
import type { UpstreamCaller } from './tools/upstreamCalls.js';

/** Everything the gateway's request handling needs, built once by createGateway. */
export interface GatewayRuntime {
  readonly config: SkillgateConfig;
  readonly catalogs: CatalogSource;
  readonly store: SessionStore;
  /** Notifications across replicas (in-process with the memory backend). */
  readonly events: EventBus<StateEvent>;
  readonly runner: ScriptRunner;
  /** Async jobs, recorded in the state backend's job store (shared by replicas with Redis). */
  readonly jobs: JobRegistry;
  readonly policy: AccessPolicy;
  /** Who sees and may call what, in both eras. */
  readonly disclosure: DisclosurePolicy;
  readonly metrics: Metrics;
  readonly log: FastifyBaseLogger;
  /** Tool calls in progress (shutdown waits for them). */
  readonly inFlight: InFlightCalls;
  /** The last tool calls of this replica (the operator page's audit trail). */
  readonly recentCalls: RecentCalls;
  /** Calls to upstream MCP servers; absent when none is configured (docs/upstreams.md). */
  readonly upstreams?: UpstreamCaller;
}
