import type { Catalog } from '@skillgate/skills';
import type { FastifyBaseLogger } from 'fastify';
import type { DisclosurePolicy } from '../disclosure/disclosurePolicy.js';
import { createRecentCalls, type RecentCalls } from '../observability/recentCalls.js';
import { createUsageCounter, type UsageCounter } from '../observability/usageCounter.js';
import { createSkillsService, type SkillsService } from '../skillsExtension/skillsService.js';
import { createCallObserver } from '../tools/callObservation.js';
import { createKindHandlers } from '../tools/dispatchByKind.js';
import { createInFlightCalls, type InFlightCalls } from '../tools/inFlightCalls.js';
import { createSkillSearch } from '../tools/skillSearch.js';
import { createToolHandlers, type ToolHandlers } from '../tools/toolHandlers.js';
import { callCredentialsOf } from './callCredentialsOf.js';
import type { GatewaySettings } from './gatewaySettings.js';
import type { Infrastructure } from './startInfrastructure.js';

/** Options of composeHandlers. */
export interface HandlersOptions {
  readonly settings: GatewaySettings;
  readonly infrastructure: Infrastructure;
  readonly disclosure: DisclosurePolicy;
  readonly log: FastifyBaseLogger;
}

/** The handlers both eras serve, and what observes their calls. */
export interface Handlers {
  /** tools/list and tools/call. */
  readonly tools: ToolHandlers;
  /** The MCP Skills extension: skills/list, skills/get, resources, prompts. */
  readonly skills: SkillsService;
  /** Tool calls in progress (a shutdown waits for them). */
  readonly inFlight: InFlightCalls;
  /** The last tool calls of this replica, for the operator page (docs/operator.md). */
  readonly recentCalls: RecentCalls;
  /** Per skill and principal, counted in memory and flushed to the state backend each second. */
  readonly usage: UsageCounter;
}

/** Builds the tool and Skills handlers over the catalog, and warms the search index after each build. */
export function composeHandlers(options: HandlersOptions): Handlers {
  const { settings, infrastructure, disclosure, log } = options;
  const { catalogs, metrics, tracing } = infrastructure;
  const search = createSkillSearch({
    onBuild: (trigger) => metrics.inc('skillgate_search_index_builds_total', { trigger }),
  });
  // Where principals search (a catalog past tools.max_listed, or search configured), the every-skill index is
  // built after each catalog build, in slices off the request path, so the first search does not wait for it.
  const warmSearch = (catalog: Catalog): void => {
    const searching = catalog.skills.size > settings.searchAhead.maxListed || settings.searchAhead.configured;
    if (!searching) return;
    search.warm(catalog).catch((error: unknown) => log.warn({ err: error }, 'search index build failed'));
  };
  warmSearch(catalogs.current);
  catalogs.onChange((_previous, next) => warmSearch(next));
  const inFlight = createInFlightCalls();
  const recentCalls = createRecentCalls();
  const usage = createUsageCounter({
    store: infrastructure.state.usage,
    metrics,
    keepQueries: settings.keepQueries,
    redact: options.infrastructure.secrets.redact,
    maxQueryChars: settings.maxClientStringChars,
    onError: (error) => log.warn({ err: error }, 'skill usage could not be written to the state backend'),
  });
  const { store, runner, jobs, upstreams } = infrastructure;
  // The credentials as tool calls use them: headers, script variables, connect answers (docs/credentials.md).
  const credentials =
    infrastructure.credentials === undefined ? undefined : callCredentialsOf(infrastructure.credentials);
  // Each family of tool kinds is given only the services it uses.
  const kinds = createKindHandlers({
    info: { disclosure, unlocks: store, metrics },
    files: { disclosure, readLimits: settings.readLimits },
    scripts: {
      disclosure,
      runner,
      jobs,
      metrics,
      ...(tracing === undefined ? {} : { tracing }),
      ...(credentials === undefined ? {} : { credentials }),
    },
    upstreams: {
      disclosure,
      upstreams,
      ...(tracing === undefined ? {} : { tracing }),
      ...(credentials === undefined ? {} : { credentials }),
    },
    search: { disclosure, search, rateLimiter: infrastructure.state.rateLimiter },
  });
  const observe = createCallObserver({
    metrics,
    usage,
    ...(tracing === undefined ? {} : { tracing }),
    recentCalls,
    log,
    logArguments: settings.logArguments,
    maxClientStringChars: settings.maxClientStringChars,
  });
  const tools = createToolHandlers({
    catalogs,
    disclosure,
    resolve: { disclosure, unlocks: store },
    kinds,
    observe,
    inFlight,
    events: infrastructure.state.events,
    log,
    maxClientStringChars: settings.maxClientStringChars,
    ...(credentials === undefined ? {} : { requestStates: credentials }),
  });
  const skills = createSkillsService({
    catalogs,
    disclosure,
    log,
    readLimits: settings.readLimits,
    maxClientStringChars: settings.maxClientStringChars,
    listTtlMs: settings.listTtlMs,
    prompts: settings.prompts,
  });
  return { tools, skills, inFlight, recentCalls, usage };
}
