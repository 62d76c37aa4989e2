/** One tool of an upstream MCP server as the catalog is built from it (plain data, no transport). */
export interface UpstreamTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly annotations?: Readonly<Record<string, unknown>>;
}

/** Connection state of one upstream MCP server. */
export type UpstreamState = 'connecting' | 'ready' | 'down';

/**
 * What the catalog knows of one configured upstream MCP server when it is built (docs/upstreams.md). The
 * upstream pool (@skillgate/upstreams) produces it; it lives here, with the catalog that reads it, because
 * every library may depend on this package and this package on none of them.
 */
export interface UpstreamSnapshot {
  /** The configured `id` (a-z0-9-): names its auto skill and its `mcp__<id>__<tool>` bindings. */
  readonly id: string;
  /** `auto`: the upstream is a skill of its own; `none`: only folder skills that bind its tools expose them. */
  readonly skill: 'auto' | 'none';
  /** The configured description of its auto skill. */
  readonly description?: string;
  readonly state: UpstreamState;
  /** Why it is down (or why the last attempt failed). */
  readonly lastError?: string;
  /** The upstream's initialize `instructions`. */
  readonly instructions?: string;
  readonly serverInfo?: { readonly name: string; readonly title?: string; readonly version?: string };
  /** Already narrowed by the configured `tools` globs; the last known list while down. */
  readonly tools: readonly UpstreamTool[];
  /** Tools of its listing left out by the upstream's bounds (max_tools, schema and name bounds, repeats). */
  readonly dropped?: readonly DroppedTool[];
}

/** A tool of an upstream's listing that the gateway left out, and why. */
export interface DroppedTool {
  /** The tool's name, cut to 128 characters. */
  readonly name: string;
  readonly reason: string;
}
