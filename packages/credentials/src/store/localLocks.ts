import { CredentialsError } from '../credentialsError.js';

/** In-process locks by name: one holder at a time, the next waiter in line after it (FIFO). */
export interface LocalLocks {
  withLock<T>(name: string, waitMs: number, work: () => Promise<T>): Promise<T>;
}

/** Locks for one process (the file store; and in front of Redis, so a replica's callers queue locally first). */
export function createLocalLocks(): LocalLocks {
  const tails = new Map<string, Promise<void>>();
  return {
    async withLock(name, waitMs, work) {
      const previous = tails.get(name) ?? Promise.resolve();
      let release = (): void => {};
      const mine = new Promise<void>((resolve) => {
        release = resolve;
      });
      const tail = previous.then(() => mine);
      tails.set(name, tail);
      let timer: NodeJS.Timeout | undefined;
      try {
        const waited = await Promise.race([
          previous.then(() => true),
          new Promise<false>((resolve) => {
            timer = setTimeout(() => resolve(false), waitMs);
          }),
        ]);
        if (!waited) {
          throw new CredentialsError('STORE_UNAVAILABLE', `lock ${name} still held after ${waitMs} ms`);
        }
        return await work();
      } finally {
        clearTimeout(timer);
        release();
        if (tails.get(name) === tail) tails.delete(name);
      }
    },
  };
}
