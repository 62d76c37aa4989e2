import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import { type RedisServer, startRedisServer, waitFor } from '@skillgate/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryEventBus } from '../src/events/createMemoryEventBus.js';
import { createRedisEventBus } from '../src/events/createRedisEventBus.js';
import type { StateEvent } from '../src/events/types.js';
import { connections, freshPrefix } from './helpers/redisReplicas.js';

let redis: RedisServer;
let pool: ReturnType<typeof connections>;
beforeAll(async () => {
  redis = await startRedisServer({ appendOnly: false });
  pool = connections(redis.url);
});
afterEach(async () => pool.closeAll());
afterAll(async () => redis.close());

describe('createRedisEventBus', () => {
  it('delivers an event to the listeners of every replica exactly once', async () => {
    const prefix = freshPrefix();
    const one = createRedisEventBus({ connection: await pool.open(prefix) });
    const two = createRedisEventBus({ connection: await pool.open(prefix) });
    const atOne: StateEvent[] = [];
    const atTwo: StateEvent[] = [];
    one.subscribe((e) => atOne.push(e));
    two.subscribe((e) => atTwo.push(e));
    const notify: StateEvent = {
      kind: 'session_notify',
      sessionId: 's1',
      message: { method: 'notifications/tools/list_changed' },
    };
    const scoped: StateEvent = {
      kind: 'scope_notify',
      scopeKey: 'principal:agent-a',
      exceptSessionId: 's1',
      message: { method: 'notifications/tools/list_changed' },
    };
    one.publish({ kind: 'tools_list_changed' });
    two.publish(notify);
    // The publisher's own listeners hear it at once, synchronously.
    expect(atOne).toEqual([{ kind: 'tools_list_changed' }]);
    await waitFor(() => atOne.length === 2 && atTwo.length === 2, { what: 'both events on both replicas' });
    // Redis delivers a channel's messages in publish order: once a later event from each side has arrived on
    // the other, a duplicate of an earlier one would have arrived before it (no clock needed to rule it out).
    one.publish(scoped);
    two.publish(scoped);
    await waitFor(() => atOne.length >= 4 && atTwo.length >= 4, {
      what: 'the later events on both replicas',
    });
    expect(atOne).toEqual([{ kind: 'tools_list_changed' }, notify, scoped, scoped]);
    expect(atTwo).toEqual([notify, { kind: 'tools_list_changed' }, scoped, scoped]);
    one.close();
    two.close();
  });

  it('keeps replicas with another key prefix apart and drops malformed messages', async () => {
    const prefix = freshPrefix();
    const errors: Error[] = [];
    const connection = await pool.open(prefix);
    const bus = createRedisEventBus({ connection, onError: (e) => errors.push(e) });
    const other = createRedisEventBus({ connection: await pool.open(freshPrefix()) });
    const heard: StateEvent[] = [];
    bus.subscribe((e) => heard.push(e));
    other.publish({ kind: 'tools_list_changed' });
    await connection.publish('events', 'not json');
    await connection.publish('events', JSON.stringify({ origin: 'x', event: { kind: 'format_disk' } }));
    await waitFor(() => errors.length === 2, { what: 'both malformed messages reported' });
    expect(heard).toEqual([]);
    bus.close();
    other.close();
  });

  it('unsubscribes idempotently', async () => {
    const bus = createRedisEventBus({ connection: await pool.open(freshPrefix()) });
    const heard: StateEvent[] = [];
    const off = bus.subscribe((e) => heard.push(e));
    off();
    off();
    bus.publish({ kind: 'tools_list_changed' });
    expect(heard).toEqual([]);
    bus.close();
  });

  it("is the SDK's ServerEventBus shape, with its events crossing replicas", async () => {
    const prefix = freshPrefix();
    // Compiles only if both buses satisfy the SDK's interface.
    const one: ServerEventBus = createRedisEventBus({ connection: await pool.open(prefix) });
    const two: ServerEventBus = createRedisEventBus({ connection: await pool.open(prefix) });
    const local: ServerEventBus = createMemoryEventBus();
    const heard: ServerEvent[] = [];
    two.subscribe((e) => heard.push(e));
    one.publish({ kind: 'resource_updated', uri: 'skill://pdf/SKILL.md' });
    await waitFor(() => heard.length === 1, { what: 'the resource_updated event' });
    expect(heard[0]).toEqual({ kind: 'resource_updated', uri: 'skill://pdf/SKILL.md' });
    expect(typeof local.subscribe(() => {})).toBe('function');
  });
});

describe('createMemoryEventBus', () => {
  it('delivers synchronously, survives a throwing listener and reports it', () => {
    const errors: Error[] = [];
    const bus = createMemoryEventBus({ onError: (e) => errors.push(e) });
    const heard: string[] = [];
    bus.subscribe(() => {
      throw new Error('boom');
    });
    bus.subscribe((e) => heard.push(e.kind));
    bus.publish({ kind: 'tools_list_changed' });
    expect(heard).toEqual(['tools_list_changed']);
    expect(errors.map((e) => e.message)).toEqual(['boom']);
  });
});
