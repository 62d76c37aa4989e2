import type { RunProgress, ScriptRunner } from '@skillgate/runner';
import type { Catalog, ToolTarget } from '@skillgate/skills';
import type { JobRegistry, SessionStore } from '@skillgate/state';
import type { CatalogSource } from '../core/catalogSource.js';
import type { Audience, DisclosurePolicy } from '../disclosure/disclosurePolicy.js';
import type { Metrics } from '../observability/metrics.js';
import type { Tracing } from '../observability/tracing.js';
import type { SkillSearch } from './skillSearch.js';
import type { ReadLimits } from './toolResults.js';
import type { UpstreamCaller, UpstreamCallLabels, UpstreamProgress } from './upstreamCalls.js';

/** Options of the tool-call handler: what tool calls work with, built once by the composition root. */
export interface ToolCallOptions {
  readonly catalogs: Pick<CatalogSource, 'current'>;
  /** Who may call what; get_info's text and unlock effect. */
  readonly disclosure: DisclosurePolicy;
  /** Where get_info records an unlock, and a used tool's skill becomes the most recently used. */
  readonly unlocks: Pick<SessionStore, 'unlock' | 'use'>;
  readonly runner: Pick<ScriptRunner, 'run' | 'start'>;
  /** Async jobs (run_async tools, skill_get_async_status, skill_cancel_async). */
  readonly jobs: Pick<JobRegistry, 'start' | 'status' | 'cancel'>;
  /** Calls to upstream MCP servers; absent when none is configured (docs/upstreams.md). */
  readonly upstreams?: UpstreamCaller;
  readonly metrics: Metrics;
  /** search_skills' indexes (search mode). */
  readonly search: SkillSearch;
  /** Bounds of read tools (`resources.*`). */
  readonly readLimits: ReadLimits;
  /** Child spans of script runs and upstream calls; absent when tracing is off (docs/observability.md). */
  readonly tracing?: Tracing;
}

/**
 * A called tool name, resolved once against one catalog snapshot: every later step (the disclosure decision,
 * the handler, the metrics label) reads this, never the name again. A reload during the call does not change
 * what it runs.
 */
export interface CalledTool {
  readonly name: string;
  readonly catalog: Catalog;
  /** What the name names in that catalog; undefined when it names nothing. */
  readonly target: ToolTarget | undefined;
}

/** What a tool call may do besides returning: notify its own response stream. */
export interface CallExtras {
  readonly signal: AbortSignal;
  /** Sends tools/list_changed related to this request (so it travels on its response stream). */
  readonly notifyToolsChanged: () => Promise<void>;
  /** Reports a running script's progress, when the caller asked for it with a progressToken. */
  readonly reportProgress?: (progress: RunProgress) => void;
  /** Passes an upstream's progress on as it came, when the caller asked for it with a progressToken. */
  readonly forwardProgress?: (progress: UpstreamProgress) => void;
}

/** One call being handled: what it may use, who called, and the catalog snapshot it runs against. */
export interface Call {
  readonly parts: ToolCallOptions;
  readonly audience: Audience;
  readonly catalog: Catalog;
  readonly name: string;
  readonly extras: CallExtras;
  /** Filled by an upstream call with what the audit line names. */
  readonly audit: { upstream?: UpstreamCallLabels };
}
