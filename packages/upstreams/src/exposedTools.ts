import type { Tool } from '@modelcontextprotocol/client';
import type { UpstreamTool } from '@skillgate/skills';
import picomatch from 'picomatch';

/**
 * The narrowing of an upstream's tools/list by its configured `tools` globs, compiled once per connection:
 * the tools it exposes at all, as frozen plain data (no SDK objects reach the catalog).
 */
export function createExposedTools(
  globs: readonly string[],
): (listed: readonly Tool[]) => readonly UpstreamTool[] {
  const exposed = picomatch([...globs]);
  return (listed) => Object.freeze(listed.filter((tool) => exposed(tool.name)).map(toUpstreamTool));
}

function toUpstreamTool(tool: Tool): UpstreamTool {
  return Object.freeze({
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: tool.inputSchema as Record<string, unknown>,
    ...(tool.outputSchema === undefined
      ? {}
      : { outputSchema: tool.outputSchema as Record<string, unknown> }),
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations as Record<string, unknown> }),
  });
}
