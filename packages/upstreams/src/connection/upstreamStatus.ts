import type { DroppedTool, UpstreamSnapshot, UpstreamState, UpstreamTool } from '@skillgate/skills';
import type { UpstreamDefinition } from '../types.js';

/** What changed of an upstream; a key left out keeps its value (`lastError: undefined` clears it). */
export interface UpstreamStatusChange {
  readonly state?: UpstreamState;
  readonly lastError?: string | undefined;
  readonly tools?: readonly UpstreamTool[];
  /** Tools of the last listing left out by the listing bounds (set with tools). */
  readonly dropped?: readonly DroppedTool[];
  readonly instructions?: string | undefined;
  readonly serverInfo?: UpstreamSnapshot['serverInfo'];
}

/** Options of createUpstreamStatus. */
export interface UpstreamStatusOptions {
  readonly definition: UpstreamDefinition;
  /** Called when the state, last error, instructions or tools changed. */
  readonly changed: () => void;
}

/** One upstream's state, last error and tools, and the snapshot the catalog is built from. */
export interface UpstreamStatus {
  readonly state: UpstreamState;
  readonly lastError: string | undefined;
  /** Whether the last tools/list (after the globs) has this tool. */
  exposes(tool: string): boolean;
  update(change: UpstreamStatusChange): void;
  /** Frozen; the same object until something changes. */
  snapshot(): UpstreamSnapshot;
}

/** The status of one upstream connection, starting as `connecting` with no tools. */
export function createUpstreamStatus(options: UpstreamStatusOptions): UpstreamStatus {
  const { definition } = options;
  let state: UpstreamState = 'connecting';
  let lastError: string | undefined;
  let tools: readonly UpstreamTool[] = [];
  let dropped: readonly DroppedTool[] = [];
  let toolNames = new Set<string>();
  let instructions: string | undefined;
  let serverInfo: UpstreamSnapshot['serverInfo'];
  let cached: UpstreamSnapshot | undefined;

  const snapshot = (): UpstreamSnapshot => {
    cached ??= Object.freeze({
      id: definition.id,
      skill: definition.skill,
      ...(definition.description === undefined ? {} : { description: definition.description }),
      state,
      ...(lastError === undefined ? {} : { lastError }),
      ...(instructions === undefined ? {} : { instructions }),
      ...(serverInfo === undefined ? {} : { serverInfo }),
      tools,
      ...(dropped.length === 0 ? {} : { dropped }),
    });
    return cached;
  };

  return {
    get state() {
      return state;
    },
    get lastError() {
      return lastError;
    },
    exposes: (tool) => toolNames.has(tool),
    snapshot,
    update(change) {
      const before = cached ?? snapshot();
      if (change.state !== undefined) state = change.state;
      if ('lastError' in change) lastError = change.lastError;
      if ('instructions' in change) instructions = change.instructions;
      if ('serverInfo' in change) serverInfo = change.serverInfo;
      if (change.dropped !== undefined) dropped = change.dropped;
      if (change.tools !== undefined) {
        tools = change.tools;
        toolNames = new Set(tools.map((t) => t.name));
      }
      cached = undefined;
      const after = snapshot();
      // A relisting that returns the same tools (or a repeated failure) is no change for the catalog.
      if (
        before.state !== after.state ||
        before.lastError !== after.lastError ||
        before.instructions !== after.instructions ||
        JSON.stringify(before.tools) !== JSON.stringify(after.tools) ||
        JSON.stringify(before.dropped) !== JSON.stringify(after.dropped)
      ) {
        options.changed();
      }
    },
  };
}
