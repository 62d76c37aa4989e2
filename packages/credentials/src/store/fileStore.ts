import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CredentialsError } from '../credentialsError.js';
import type { CredentialStore, StoredRecord } from './credentialStore.js';
import { createLocalLocks } from './localLocks.js';

/** Options of createFileStore. */
export interface FileStoreOptions {
  /** The JSON file (created 0600, its folder 0700). */
  readonly path: string;
  /** Clock for flow expiry (default Date.now). */
  readonly now?: () => number;
}

interface FileContent {
  readonly version: 1;
  /** principal -> provider -> sealed record. */
  readonly records: Record<string, Record<string, string>>;
}

interface Flow {
  readonly sealed: string;
  readonly pendingKey: string;
  readonly expiresAt: number;
}

const unavailable = (what: string, error: unknown): CredentialsError =>
  new CredentialsError('STORE_UNAVAILABLE', `credentials file: ${what} failed`, { cause: error });

const parse = (text: string): FileContent => {
  const value = JSON.parse(text) as unknown;
  if (
    value === null ||
    typeof value !== 'object' ||
    (value as { version?: unknown }).version !== 1 ||
    typeof (value as { records?: unknown }).records !== 'object'
  ) {
    throw new Error('not a skillgate credentials file (version 1)');
  }
  return value as FileContent;
};

/**
 * The single-node store: sealed records in one 0600 JSON file, replaced by an atomic rename (temp file in the
 * same folder, fsync, rename), so a crash leaves the old file or the new one, never half of one. Writes are
 * serialized in this process; the file is read again when it changed on disk (`skillgate connections
 * --revoke` from another process). Flows and locks live in memory: one node, and a flow lives 10 minutes.
 */
export function createFileStore(options: FileStoreOptions): CredentialStore {
  const { path } = options;
  const now = options.now ?? Date.now;
  const locks = createLocalLocks();
  const flows = new Map<string, Flow>();
  const pending = new Map<string, string>();
  let cached: { content: FileContent; signature: string } | undefined;
  let writes: Promise<unknown> = Promise.resolve();

  const signatureOf = async (): Promise<string | undefined> => {
    try {
      const s = await stat(path);
      return `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw unavailable('stat', error);
    }
  };

  const load = async (): Promise<FileContent> => {
    const signature = await signatureOf();
    if (signature === undefined) return { version: 1, records: {} };
    if (cached?.signature === signature) return cached.content;
    try {
      const content = parse(await readFile(path, 'utf8'));
      cached = { content, signature };
      return content;
    } catch (error) {
      throw unavailable('read', error);
    }
  };

  const save = async (content: FileContent): Promise<void> => {
    const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(JSON.stringify(content));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw unavailable('write', error);
    }
    cached = undefined;
  };

  // Read-modify-write one at a time, so two changes in flight never lose one of them.
  const update = <T>(change: (records: Record<string, Record<string, string>>) => T): Promise<T> => {
    const run = writes.then(async () => {
      const content = await load();
      const records = structuredClone(content.records);
      const result = change(records);
      for (const [principal, byProvider] of Object.entries(records)) {
        if (Object.keys(byProvider).length === 0) delete records[principal];
      }
      await save({ version: 1, records });
      return result;
    });
    writes = run.catch(() => undefined);
    return run;
  };

  const liveFlow = (id: string): Flow | undefined => {
    const flow = flows.get(id);
    if (flow === undefined) return undefined;
    if (flow.expiresAt > now()) return flow;
    flows.delete(id);
    if (pending.get(flow.pendingKey) === id) pending.delete(flow.pendingKey);
    return undefined;
  };

  return {
    async get(principal, provider) {
      return (await load()).records[principal]?.[provider];
    },
    put(principal, provider, sealed) {
      return update((records) => {
        records[principal] = { ...records[principal], [provider]: sealed };
      });
    },
    replace(principal, provider, expected, sealed) {
      return update((records) => {
        const byProvider = records[principal];
        if (byProvider?.[provider] !== expected) return false;
        byProvider[provider] = sealed;
        return true;
      });
    },
    delete(principal, provider) {
      return update((records) => {
        const byProvider = records[principal];
        if (byProvider?.[provider] === undefined) return false;
        delete byProvider[provider];
        return true;
      });
    },
    async list(principal) {
      const { records } = await load();
      const out: StoredRecord[] = [];
      for (const [p, byProvider] of Object.entries(records)) {
        if (principal !== undefined && p !== principal) continue;
        for (const [provider, sealed] of Object.entries(byProvider))
          out.push({ principal: p, provider, sealed });
      }
      return out;
    },
    async counts() {
      const counts: Record<string, number> = {};
      for (const byProvider of Object.values((await load()).records)) {
        for (const provider of Object.keys(byProvider)) counts[provider] = (counts[provider] ?? 0) + 1;
      }
      return counts;
    },
    async putFlow(id, sealed, pendingKey, ttlMs, putOptions) {
      if (putOptions?.onlyIfPresent === true && liveFlow(id) === undefined) return;
      flows.set(id, { sealed, pendingKey, expiresAt: now() + ttlMs });
      pending.set(pendingKey, id);
      // Expired flows are dropped as they are met; sweep the rest here so abandoned ones do not pile up.
      for (const flowId of flows.keys()) liveFlow(flowId);
    },
    async pendingFlow(pendingKey) {
      const id = pending.get(pendingKey);
      return id !== undefined && liveFlow(id) !== undefined ? id : undefined;
    },
    async peekFlow(id) {
      return liveFlow(id)?.sealed;
    },
    async takeFlow(id, pendingKey) {
      const flow = liveFlow(id);
      flows.delete(id);
      if (pending.get(pendingKey) === id) pending.delete(pendingKey);
      return flow?.sealed;
    },
    withLock(name, { waitMs }, work) {
      return locks.withLock(name, waitMs, work);
    },
    async close() {
      await writes;
    },
  };
}
