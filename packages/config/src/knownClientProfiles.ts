/**
 * The client profiles every config gets unless it sets `clients` itself: clients that never re-list
 * tools after notifications/tools/list_changed get `catalog` (a list that never changes, with universal
 * run/read calls), so they can run scripts; clients that re-list keep the default `namespaced`.
 * Matching is on the initialize clientInfo.name (glob, case-insensitive). The evidence for each entry is
 * in docs/clients.md; the `session opened` log line shows the name a client sends.
 */
export const KNOWN_CLIENT_PROFILES = [
  // Codex CLI 0.169: refuses tools that were not in its first list ("unsupported call").
  { match: { name: 'codex-mcp-client' }, disclosure: 'catalog' },
  // MCP Inspector CLI 2.12: tool_not_found for tools that appear mid-session.
  { match: { name: '*inspector*' }, disclosure: 'catalog' },
  // Vercel AI SDK @ai-sdk/mcp: notifications go to onUncaughtError; tools are fetched once.
  { match: { name: 'ai-sdk-mcp-client' }, disclosure: 'catalog' },
  // Cursor: caches the tool list per connection (cursor/cursor#2980).
  { match: { name: 'cursor*' }, disclosure: 'catalog' },
  // Claude Desktop / claude.ai: refreshed tool lists are not registered (anthropics/claude-ai-mcp#960).
  { match: { name: 'claude-ai*' }, disclosure: 'catalog' },
  // LangChain mcp-adapters (Python SDK's default clientInfo name "mcp"): tools cached at load time.
  { match: { name: 'mcp' }, disclosure: 'catalog' },
] as const;
