/**
 * The client profiles every config gets unless it sets `clients` itself: clients that never re-list
 * tools after notifications/tools/list_changed get `catalog` (a list that never changes, with universal
 * run/read calls), so they can run scripts; clients that re-list keep the default `namespaced`.
 * Matching is on the initialize clientInfo.name (glob, case-insensitive; a name mcp-remote decorated as
 * `<host> (via mcp-remote x.y.z)` also matches as `<host>`). The evidence for each entry is in
 * docs/clients.md; the `session opened` log line shows the name a client sends.
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
  // LangChain JS @langchain/mcp-adapters 1.1: keeps its first getTools() list ("Tool ... not found").
  { match: { name: '@langchain/mcp-adapters' }, disclosure: 'catalog' },
  // LangChain Python mcp-adapters (the Python SDK's default clientInfo name "mcp"): tools cached at load time.
  { match: { name: 'mcp' }, disclosure: 'catalog' },
  // Mastra and the OpenAI Agents SDK send the user's server key as their name; `skillgate` is the key every
  // set-up line in the README uses. Neither follows list_changed on a 2025-era session.
  { match: { name: 'skillgate' }, disclosure: 'catalog' },
] as const;
