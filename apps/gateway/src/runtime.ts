import type { SkillgateConfig } from '@skillgate/config';
import type { JobRegistry, ScriptRunner } from '@skillgate/runner';
import type { SessionRecord, SessionStore } from '@skillgate/sessions';
import type { FastifyBaseLogger } from 'fastify';
import type { AccessPolicy, Principal } from './accessPolicy.js';
import type { CatalogSource } from './catalogSource.js';
import type { InFlightCalls } from './inFlightCalls.js';
import type { Metrics } from './metrics.js';
import type { ArgumentSchemas } from './toolArguments.js';

/** Everything the gateway's request handling needs, built once by createGateway. */
export interface GatewayRuntime {
  readonly config: SkillgateConfig;
  readonly catalogs: CatalogSource;
  readonly store: SessionStore;
  readonly runner: ScriptRunner;
  readonly jobs: JobRegistry;
  readonly policy: AccessPolicy;
  readonly metrics: Metrics;
  readonly schemas: ArgumentSchemas;
  readonly log: FastifyBaseLogger;
  /** Tool calls in progress (shutdown waits for them). */
  readonly inFlight: InFlightCalls;
}

/** One MCP session as the handlers see it. */
export interface SessionContext {
  readonly record: SessionRecord;
  readonly principal: Principal;
}
