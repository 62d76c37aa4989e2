import { createProcessGuard, type ProcessGuard } from '@skillgate/runner';
import type { UpstreamPool, UpstreamPoolOptions, UpstreamSnapshot } from './types.js';
import { createUpstreamConnection, type UpstreamConnection } from './upstreamConnection.js';

/**
 * The gateway's connections to its upstream MCP servers (docs/upstreams.md). Nothing connects before
 * start(); a stdio server is spawned only then, under a process guard of the pool's own.
 */
export function createUpstreamPool(options: UpstreamPoolOptions): UpstreamPool {
  const listeners = new Set<(id: string) => void>();
  let guard: Promise<ProcessGuard> | undefined;
  const getGuard = (): Promise<ProcessGuard> => {
    guard ??= createProcessGuard();
    return guard;
  };
  const connections = new Map<string, UpstreamConnection>();
  for (const definition of options.upstreams) {
    connections.set(
      definition.id,
      createUpstreamConnection({
        definition,
        env: options.env,
        cwd: options.cwd,
        guard: getGuard,
        logger: options.logger,
        backoff: options.backoff ?? { initialMs: 1000, maxMs: 60_000 },
        stderrBytesPerMinute: options.stderrBytesPerMinute ?? 65_536,
        clientInfo: options.clientInfo ?? { name: 'skillgate', version: '0.1.0' },
        changed: () => {
          for (const listener of listeners) {
            try {
              listener(definition.id);
            } catch (error) {
              options.logger?.warn(
                { upstream: definition.id, error: String(error) },
                'upstream change listener failed',
              );
            }
          }
        },
      }),
    );
  }
  let snapshots: readonly UpstreamSnapshot[] | undefined;
  listeners.add(() => {
    snapshots = undefined;
  });
  return {
    async start() {
      await Promise.all([...connections.values()].map((connection) => connection.start()));
    },
    snapshots() {
      snapshots ??= Object.freeze([...connections.values()].map((connection) => connection.snapshot()));
      return snapshots;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    async call(id, tool, args, callOptions = {}) {
      const connection = connections.get(id);
      if (connection === undefined) {
        return { ok: false, reason: 'UPSTREAM_UNAVAILABLE', message: `no upstream ${id} is configured` };
      }
      return connection.call(tool, args, callOptions);
    },
    async close() {
      await Promise.all([...connections.values()].map((connection) => connection.close()));
      await (await guard)?.close();
    },
  };
}
