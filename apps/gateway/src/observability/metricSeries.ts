// The series the gateway exports, as one table: the registry (metrics.ts) counts them and
// docs/observability.md is written from them (`pnpm docs:metrics`).

/** The kind of a series, as Prometheus types it. */
type SeriesType = 'counter' | 'gauge' | 'histogram';

/** One series the gateway exports: the registry and docs/observability.md both read this table. */
export interface SeriesSpec {
  readonly name: string;
  readonly type: SeriesType;
  /** Label names, each with a bounded set of values. */
  readonly labels: readonly string[];
  readonly help: string;
}

/**
 * Every series of the gateway's own (prom-client's process and Node.js series come on top, unless turned off).
 * `pnpm docs:metrics` writes this table into docs/observability.md; a test holds the two equal.
 */
export const METRIC_SERIES = [
  {
    name: 'skillgate_tool_calls_total',
    type: 'counter',
    labels: ['kind', 'outcome'],
    help: 'Tool calls by kind and outcome.',
  },
  {
    name: 'skillgate_credential_events_total',
    type: 'counter',
    labels: ['kind', 'provider', 'outcome'],
    help: 'Per-principal and gateway credentials (docs/credentials.md) by kind (connect, refresh, exchange, client_credentials, disconnect), provider or upstream id, and outcome (ok, refused, failed).',
  },
  {
    name: 'skillgate_unlocks_total',
    type: 'counter',
    labels: [],
    help: 'First unlocks of a skill in a session.',
  },
  {
    name: 'skillgate_script_runs_total',
    type: 'counter',
    labels: ['status'],
    help: 'Finished script runs by status.',
  },
  {
    name: 'skillgate_script_duration_seconds',
    type: 'histogram',
    labels: ['mode'],
    help: 'Script run duration, by mode (sync or async).',
  },
  {
    name: 'skillgate_skill_usage_total',
    type: 'counter',
    labels: ['skill', 'event'],
    help: 'Calls per catalog skill by event: info (get_info, load_skill), run_ok, run_error, run_limit, read, upstream (docs/observability.md, "Skill usage").',
  },
  {
    name: 'skillgate_search_empty_total',
    type: 'counter',
    labels: [],
    help: 'search_skills calls that found no skill.',
  },
  {
    name: 'skillgate_rejected_requests_total',
    type: 'counter',
    labels: ['reason'],
    help: 'HTTP requests rejected by reason.',
  },
  {
    name: 'skillgate_rejected_connections_total',
    type: 'counter',
    labels: ['reason'],
    help: 'TCP connections closed on accept by reason (connection caps).',
  },
  { name: 'skillgate_sessions_created_total', type: 'counter', labels: [], help: 'MCP sessions created.' },
  {
    name: 'skillgate_sessions_restored_total',
    type: 'counter',
    labels: [],
    help: 'Sessions opened elsewhere (another replica, an earlier process) taken over here.',
  },
  {
    name: 'skillgate_sessions_evicted_total',
    type: 'counter',
    labels: [],
    help: "Longest-idle sessions closed to admit a principal's new one at sessions.max_per_principal.",
  },
  {
    name: 'skillgate_catalog_reloads_total',
    type: 'counter',
    labels: ['outcome'],
    help: 'Catalog reloads by outcome.',
  },
  {
    name: 'skillgate_modern_requests_total',
    type: 'counter',
    labels: ['path'],
    help: "MCP 2026-07-28 requests by path: direct (answered without the SDK's per-request server) or sdk.",
  },
  {
    name: 'skillgate_session_requests_total',
    type: 'counter',
    labels: ['path'],
    help: "2025-era session requests by path: direct (the session's handlers without the SDK Server's per-message work) or sdk.",
  },
  {
    name: 'skillgate_get_info_holds_total',
    type: 'counter',
    labels: ['outcome'],
    help: 'get_info results held for the session to re-list, by outcome (relisted, or timeout: the session is not held again).',
  },
  {
    name: 'skillgate_search_index_builds_total',
    type: 'counter',
    labels: ['trigger'],
    help: 'search_skills index builds, one per catalog, by trigger: warm (after a catalog build where principals search) or search (the first search of a catalog that was not warmed).',
  },
  {
    name: 'skillgate_upstream_calls_total',
    type: 'counter',
    labels: ['upstream', 'outcome'],
    help: 'Calls of upstream MCP tools by upstream and outcome.',
  },
  {
    name: 'skillgate_upstream_call_duration_seconds',
    type: 'histogram',
    labels: ['upstream'],
    help: 'Duration of calls of upstream MCP tools, by upstream.',
  },
  {
    name: 'mcp_server_operation_duration_seconds',
    type: 'histogram',
    labels: ['mcp_method_name', 'error_type'],
    help: 'Duration of MCP requests (OpenTelemetry mcp.server.operation.duration) by method and error type (empty: none); recorded while tracing is on.',
  },
  {
    name: 'skillgate_upstream_up',
    type: 'gauge',
    labels: ['upstream'],
    help: 'Whether an upstream MCP server is connected (1) or not (0).',
  },
  { name: 'skillgate_sessions_open', type: 'gauge', labels: [], help: 'MCP sessions open now.' },
  { name: 'skillgate_scripts_running', type: 'gauge', labels: [], help: 'Scripts running now.' },
  { name: 'skillgate_scripts_queued', type: 'gauge', labels: [], help: 'Script runs waiting for a slot.' },
  { name: 'skillgate_skills_loaded', type: 'gauge', labels: [], help: 'Skills in the current catalog.' },
  { name: 'skillgate_jobs_running', type: 'gauge', labels: [], help: 'Async jobs running on this replica.' },
  {
    name: 'skillgate_shared_sessions_open',
    type: 'gauge',
    labels: [],
    help: 'Sessions open across every replica sharing the state backend.',
  },
  {
    name: 'skillgate_shared_jobs_running',
    type: 'gauge',
    labels: [],
    help: 'Async jobs running across every replica sharing the state backend.',
  },
] as const satisfies readonly SeriesSpec[];

/** One series of the table. */
export type MetricSeries = (typeof METRIC_SERIES)[number];
type NameOf<T extends SeriesType> = Extract<MetricSeries, { readonly type: T }>['name'];

/** Every counter the gateway exports. */
export type CounterName = NameOf<'counter'>;

/** Every gauge read at scrape time from the values render() is given. */
export type GaugeName =
  | 'skillgate_sessions_open'
  | 'skillgate_scripts_running'
  | 'skillgate_scripts_queued'
  | 'skillgate_skills_loaded';
