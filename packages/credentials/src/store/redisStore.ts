import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RedisConnection } from '@skillgate/state';
import { CredentialsError } from '../credentialsError.js';
import type { CredentialStore, StoredRecord } from './credentialStore.js';
import { createLocalLocks } from './localLocks.js';

/** Options of createRedisStore. */
export interface RedisStoreOptions {
  /** The gateway's shared-state connection (its key prefix applies). */
  readonly redis: RedisConnection;
}

// Deletes the lock only if this holder still owns it: one that outlived its TTL must not free the next holder's.
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

// Sets a hash field only if it still holds the expected value.
const REPLACE = `if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) return 1 else return 0 end`;

const unavailable = (error: unknown): CredentialsError =>
  error instanceof CredentialsError
    ? error
    : new CredentialsError('STORE_UNAVAILABLE', 'credentials store (Redis) unavailable', { cause: error });

/**
 * The store every replica shares. Keys (after the state key prefix): `cred:rec:<principal>` a hash provider ->
 * sealed record; `cred:prov:<provider>` the set of principals with a record (counts, listing);
 * `cred:flow:<id>` a sealed flow and `cred:pending:<principal+provider>` its id, both expiring with the flow;
 * `cred:lock:<name>` a refresh lock (SET NX PX, released by compare-and-delete).
 */
export function createRedisStore(options: RedisStoreOptions): CredentialStore {
  const { redis } = options;
  const recordKey = (principal: string) => redis.key('cred', 'rec', principal);
  const providerKey = (provider: string) => redis.key('cred', 'prov', provider);
  const providersKey = redis.key('cred', 'providers');
  const flowKey = (id: string) => redis.key('cred', 'flow', id);
  const pendingKey = (key: string) => redis.key('cred', 'pending', key);
  const lockKey = (name: string) => redis.key('cred', 'lock', name);
  const local = createLocalLocks();

  const run = async <T>(op: Parameters<RedisConnection['run']>[0]): Promise<T> => {
    try {
      return (await redis.run(op)) as T;
    } catch (error) {
      throw unavailable(error);
    }
  };

  const records = async (principal: string): Promise<StoredRecord[]> => {
    const all = await run<Record<string, string>>((c) => c.hgetall(recordKey(principal)));
    return Object.entries(all).map(([provider, sealed]) => ({ principal, provider, sealed }));
  };

  return {
    get(principal, provider) {
      return run<string | null>((c) => c.hget(recordKey(principal), provider)).then((v) => v ?? undefined);
    },
    async put(principal, provider, sealed) {
      await run((c) =>
        c
          .multi()
          .hset(recordKey(principal), provider, sealed)
          .sadd(providerKey(provider), principal)
          .sadd(providersKey, provider)
          .exec(),
      );
    },
    async replace(principal, provider, expected, sealed) {
      return (
        (await run<number>((c) => c.eval(REPLACE, 1, recordKey(principal), provider, expected, sealed))) === 1
      );
    },
    async delete(principal, provider) {
      const result = await run<[Error | null, unknown][] | null>((c) =>
        c.multi().hdel(recordKey(principal), provider).srem(providerKey(provider), principal).exec(),
      );
      return result?.[0]?.[1] === 1;
    },
    async list(principal) {
      if (principal !== undefined) return records(principal);
      const providers = await run<string[]>((c) => c.smembers(providersKey));
      const principals = new Set<string>();
      for (const provider of providers) {
        for (const p of await run<string[]>((c) => c.smembers(providerKey(provider)))) principals.add(p);
      }
      const out: StoredRecord[] = [];
      for (const p of principals) out.push(...(await records(p)));
      return out;
    },
    async counts() {
      const providers = await run<string[]>((c) => c.smembers(providersKey));
      const counts: Record<string, number> = {};
      for (const provider of providers) {
        const n = await run<number>((c) => c.scard(providerKey(provider)));
        if (n > 0) counts[provider] = n;
      }
      return counts;
    },
    async putFlow(id, sealed, pending, ttlMs, putOptions) {
      if (putOptions?.onlyIfPresent === true) {
        await run((c) => c.set(flowKey(id), sealed, 'PX', ttlMs, 'XX'));
        return;
      }
      await run((c) =>
        c.multi().set(flowKey(id), sealed, 'PX', ttlMs).set(pendingKey(pending), id, 'PX', ttlMs).exec(),
      );
    },
    async pendingFlow(pending) {
      const id = await run<string | null>((c) => c.get(pendingKey(pending)));
      if (id === null) return undefined;
      // The pending pointer may outlive a flow that was taken on another replica.
      const exists = await run<number>((c) => c.exists(flowKey(id)));
      return exists === 1 ? id : undefined;
    },
    async peekFlow(id) {
      return (await run<string | null>((c) => c.get(flowKey(id)))) ?? undefined;
    },
    async takeFlow(id, pending) {
      const sealed = await run<string | null>((c) => c.getdel(flowKey(id)));
      if (sealed !== null) {
        await run((c) => c.eval(RELEASE, 1, pendingKey(pending), id));
      }
      return sealed ?? undefined;
    },
    withLock(name, { ttlMs, waitMs }, work) {
      // Callers of this replica queue here first, so only one of them polls Redis for the lock.
      return local.withLock(name, waitMs, async () => {
        const key = lockKey(name);
        const token = randomBytes(16).toString('base64url');
        const deadline = Date.now() + waitMs;
        let pause = 10;
        while ((await run<string | null>((c) => c.set(key, token, 'PX', ttlMs, 'NX'))) !== 'OK') {
          if (Date.now() > deadline) {
            throw new CredentialsError('STORE_UNAVAILABLE', `lock still held after ${waitMs} ms`);
          }
          await sleep(pause);
          pause = Math.min(pause * 2, 200);
        }
        try {
          return await work();
        } finally {
          await run((c) => c.eval(RELEASE, 1, key, token)).catch(() => undefined);
        }
      });
    },
    async close() {},
  };
}
