import type { Tool } from '@modelcontextprotocol/client';
import type { DroppedTool, UpstreamTool } from '@skillgate/skills';
import picomatch from 'picomatch';
import type { ListingBounds } from '../types.js';

/** The tools of one listing the gateway keeps, and those it leaves out with why. */
export interface ExposedListing {
  readonly tools: readonly UpstreamTool[];
  readonly dropped: readonly DroppedTool[];
}

/** The listing bounds of an upstream that does not set its own (the config's defaults). */
const DEFAULT_LISTING_BOUNDS: ListingBounds = {
  maxTools: 256,
  maxSchemaBytes: 16_384,
  maxDescriptionBytes: 4096,
};

// MCP tool names are 1-128 characters (the spec's SEP-986); a longer one is no name a client can use.
const MAX_TOOL_NAME_CHARS = 128;

/**
 * The narrowing of an upstream's tools/list, compiled once per connection: its configured `tools` globs,
 * then its listing bounds, as frozen plain data (no SDK objects reach the catalog). An upstream chooses
 * its listing, so 1,000 tools of 30 KB schemas made a 30 MB get_info: past max_tools, a tool with a
 * larger schema, a repeated or overlong name are dropped (reported, never resolved by "last wins"), and a
 * long description is cut.
 */
export function createExposedTools(
  globs: readonly string[],
  bounds: ListingBounds = DEFAULT_LISTING_BOUNDS,
): (listed: readonly Tool[]) => ExposedListing {
  const exposed = picomatch([...globs], { dot: true });
  return (listed) => {
    const tools: UpstreamTool[] = [];
    const dropped: DroppedTool[] = [];
    const names = new Set<string>();
    const drop = (name: string, reason: string): void => {
      dropped.push(Object.freeze({ name: name.slice(0, MAX_TOOL_NAME_CHARS), reason }));
    };
    for (const tool of listed) {
      if (!exposed(tool.name)) continue;
      if (tool.name.length === 0 || tool.name.length > MAX_TOOL_NAME_CHARS) {
        drop(tool.name, `a name of ${tool.name.length} characters (1 to ${MAX_TOOL_NAME_CHARS})`);
      } else if (names.has(tool.name)) {
        drop(tool.name, 'listed again (the first is kept)');
      } else if (tools.length >= bounds.maxTools) {
        drop(tool.name, `over max_tools ${bounds.maxTools}`);
      } else {
        const schemaBytes = Buffer.byteLength(JSON.stringify([tool.inputSchema, tool.outputSchema ?? null]));
        if (schemaBytes > bounds.maxSchemaBytes) {
          drop(
            tool.name,
            `schemas of ${schemaBytes} bytes, over max_tool_schema_bytes ${bounds.maxSchemaBytes}`,
          );
        } else {
          names.add(tool.name);
          tools.push(toUpstreamTool(tool, bounds.maxDescriptionBytes));
        }
      }
    }
    return { tools: Object.freeze(tools), dropped: Object.freeze(dropped) };
  };
}

function toUpstreamTool(tool: Tool, maxDescriptionBytes: number): UpstreamTool {
  return Object.freeze({
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: cut(tool.title, maxDescriptionBytes) }),
    ...(tool.description === undefined ? {} : { description: cut(tool.description, maxDescriptionBytes) }),
    inputSchema: tool.inputSchema as Record<string, unknown>,
    ...(tool.outputSchema === undefined
      ? {}
      : { outputSchema: tool.outputSchema as Record<string, unknown> }),
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations as Record<string, unknown> }),
  });
}

/** The text cut to at most `bytes` UTF-8 bytes, on a character boundary. */
function cut(text: string, bytes: number): string {
  if (Buffer.byteLength(text) <= bytes) return text;
  // TextEncoder.encodeInto writes whole characters only: what fits is a valid prefix.
  const buffer = new Uint8Array(bytes);
  const { read } = new TextEncoder().encodeInto(text, buffer);
  return text.slice(0, read);
}
