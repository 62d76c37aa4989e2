/** One tool of an upstream MCP server as the catalog is built from it (plain data, no transport). */
export interface UpstreamTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly annotations?: Readonly<Record<string, unknown>>;
}

/** What the catalog knows of one configured upstream MCP server when it is built (docs/upstreams.md). */
export interface UpstreamSnapshot {
  /** The configured `id` (a-z0-9-): names its auto skill and its `mcp__<id>__<tool>` bindings. */
  readonly id: string;
  /** `auto`: the upstream is a skill of its own; `none`: only folder skills that bind its tools expose them. */
  readonly skill: 'auto' | 'none';
  /** The configured description of its auto skill. */
  readonly description?: string;
  readonly state: 'connecting' | 'ready' | 'down';
  /** Why it is down (or why the last attempt failed). */
  readonly lastError?: string;
  /** The upstream's initialize `instructions`. */
  readonly instructions?: string;
  readonly serverInfo?: { readonly name: string; readonly title?: string; readonly version?: string };
  /** Already narrowed by the configured `tools` globs; the last known list while down. */
  readonly tools: readonly UpstreamTool[];
}
