import type { ProcessGuard } from '@skillgate/runner';
import type { UpstreamSnapshot } from '@skillgate/skills';
import { createSecretScrubber } from './calls/secretScrubber.js';
import type { UpstreamConnection } from './connection/upstreamConnection.js';
import type { UpstreamDefinition, UpstreamPool, UpstreamPoolOptions } from './types.js';

/**
 * The gateway's connections to its upstream MCP servers (docs/upstreams.md). Nothing connects before
 * start(); a stdio server is spawned only then, under a process guard of the pool's own. The MCP client is
 * loaded by start() only when an upstream is configured, so a gateway (or CLI command) without upstreams
 * does not pay for it.
 */
export function createUpstreamPool(options: UpstreamPoolOptions): UpstreamPool {
  const listeners = new Set<(id: string) => void>();
  let guard: Promise<ProcessGuard> | undefined;
  const getGuard = async (): Promise<ProcessGuard> => {
    guard ??= import('@skillgate/runner').then(({ createProcessGuard }) => createProcessGuard());
    return guard;
  };
  // Every configured secret: what an upstream returns (results, errors, progress, its listing and status)
  // never shows one to a caller, wherever the upstream got it from.
  const scrub = createSecretScrubber([
    ...(options.secrets ?? []),
    ...options.upstreams.flatMap((d) =>
      [...Object.values(d.headersFromEnv ?? {}), ...Object.values(d.envFrom ?? {})].flatMap(
        (variable) => options.env[variable] ?? [],
      ),
    ),
  ]);
  const connections = new Map<string, UpstreamConnection>();
  let snapshots: readonly UpstreamSnapshot[] | undefined;
  let started: Promise<void> | undefined;
  let closed = false;
  const changed = (id: string): void => {
    snapshots = undefined;
    for (const listener of listeners) {
      try {
        listener(id);
      } catch (error) {
        options.logger?.warn({ upstream: id, error: String(error) }, 'upstream change listener failed');
      }
    }
  };
  const startAll = async (): Promise<void> => {
    if (options.upstreams.length === 0) return;
    const { createUpstreamConnection } = await import('./connection/upstreamConnection.js');
    if (closed) return;
    for (const definition of options.upstreams) {
      connections.set(
        definition.id,
        createUpstreamConnection({
          definition,
          env: options.env,
          cwd: options.cwd,
          bwrap: options.bwrap,
          guard: getGuard,
          logger: options.logger,
          backoff: options.backoff ?? { initialMs: 1000, maxMs: 60_000 },
          stderrBytesPerMinute: options.stderrBytesPerMinute ?? 65_536,
          clientInfo: options.clientInfo ?? { name: 'skillgate', version: '0.1.0' },
          changed: () => changed(definition.id),
          ...(options.connectionHeaders === undefined
            ? {}
            : {
                connectionHeaders: () =>
                  options.connectionHeaders?.(definition.id) ?? Promise.resolve(undefined),
              }),
        }),
      );
    }
    snapshots = undefined;
    await Promise.all([...connections.values()].map((connection) => connection.start()));
  };
  return {
    start() {
      started ??= startAll();
      return started;
    },
    snapshots() {
      snapshots ??= Object.freeze(
        options.upstreams.map((definition) =>
          scrub.json(connections.get(definition.id)?.snapshot() ?? notStarted(definition)),
        ),
      );
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
        const known = options.upstreams.some((definition) => definition.id === id);
        return {
          ok: false,
          reason: 'UPSTREAM_UNAVAILABLE',
          message: known ? `upstream ${id} is not started` : `no upstream ${id} is configured`,
        };
      }
      const { onProgress } = callOptions;
      const outcome = await connection.call(tool, args, {
        ...callOptions,
        ...(onProgress === undefined
          ? {}
          : {
              onProgress: (progress) =>
                onProgress(
                  progress.message === undefined
                    ? progress
                    : { ...progress, message: scrub.text(progress.message) },
                ),
            }),
      });
      return outcome.ok
        ? { ok: true, result: scrub.json(outcome.result) }
        : { ...outcome, message: scrub.text(outcome.message) };
    },
    async close() {
      closed = true;
      await Promise.all([...connections.values()].map((connection) => connection.close()));
      await (await guard)?.close();
    },
  };
}

function notStarted(definition: UpstreamDefinition): UpstreamSnapshot {
  return Object.freeze({
    id: definition.id,
    skill: definition.skill,
    ...(definition.description === undefined ? {} : { description: definition.description }),
    state: 'connecting',
    tools: [],
  });
}
