import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { loadSkills, type SourceRoot } from '@skillgate/skills';
import { downloadArchive } from './archive/downloadArchive.js';
import { unpackArchive } from './archive/unpackArchive.js';
import { assertPrivateCache } from './cache/assertPrivateCache.js';
import { measureTree } from './cache/measureTree.js';
import { type CachePin, createSourceCache, type SourceCache } from './cache/sourceCache.js';
import { contentDigest } from './contentDigest.js';
import { fetchGitCommit, type GitContext } from './git/gitRemote.js';
import { lockedSource, parseLockEntry, pinsSource, readLockFile, writeLockFile } from './lock/lockFile.js';
import { SourcesError } from './sourcesError.js';
import {
  isGitSource,
  type Lock,
  type LockEntry,
  type MaterializedSources,
  type SourceDefinition,
  type SourceStatus,
  type SourcesOptions,
} from './sourceTypes.js';

/** What a run of materializeSources does beyond serving what the lock pins. */
export interface MaterializeMode {
  /** `sync`: fetch exactly the lock; a source it does not pin is an error (image builds, air gaps). */
  readonly syncOnly?: boolean;
  /** Sources to re-resolve whatever the lock says (`sources upgrade`); `all` for every one. */
  readonly upgrade?: readonly string[] | 'all';
  /** Replace these sources' pins with these entries (a followed branch moved) instead of the lock's. */
  readonly pins?: ReadonlyMap<string, LockEntry>;
}

const archiveFormat = (url: string): 'zip' | 'tar.gz' =>
  new URL(url).pathname.toLowerCase().endsWith('.zip') ? 'zip' : 'tar.gz';

const relPath = (source: SourceDefinition): string => (source.path ?? '').replace(/^\/+|\/+$/g, '');

const cachePin = (source: SourceDefinition, commit: string): CachePin =>
  isGitSource(source)
    ? { kind: 'git', commit, path: relPath(source) }
    : { kind: 'archive', sha256: commit.replace(/^sha256:/, '') };

/** The folder that holds a source's skill folders inside its cache entry. */
const servedDir = (cache: SourceCache, source: SourceDefinition, commit: string): string =>
  isGitSource(source)
    ? cache.entryDir(cachePin(source, commit))
    : join(cache.entryDir(cachePin(source, commit)), relPath(source));

/** The key replicas share a source's resolution under: the source as configured (as the lock keeps it). */
const sharedPinKey = (source: SourceDefinition): string =>
  createHash('sha256')
    .update(JSON.stringify(lockedSource(source)))
    .digest('hex')
    .slice(0, 32);

/**
 * Fetches and verifies every source and returns the folders to serve (docs/sources.md). With a lock entry that
 * pins the configured source, exactly that commit is served, verified against the content digest; a cached
 * copy that drifted is fetched again, never served. Without one the ref is resolved and the lock written.
 */
export async function materializeSources(
  options: SourcesOptions,
  mode: MaterializeMode = {},
): Promise<MaterializedSources> {
  const cache = createSourceCache(options.cacheDir);
  const lock = options.sources.length === 0 ? undefined : await readLockFile(options.lockFile);
  if (options.sources.length > 0) await assertPrivateCache(options.cacheDir);
  const roots: SourceRoot[] = [];
  const statuses: SourceStatus[] = [];
  const entries: LockEntry[] = [];
  let changed = false;
  const upgrading = (id: string) => mode.upgrade === 'all' || mode.upgrade?.includes(id) === true;
  for (const source of options.sources) {
    const kind = isGitSource(source) ? 'git' : 'archive';
    const forced = mode.pins?.get(source.id);
    const locked = lock?.sources.find((e) => e.id === source.id);
    let entry: LockEntry | undefined =
      forced ??
      (locked !== undefined && pinsSource(locked, source) && !upgrading(source.id) ? locked : undefined);
    if (entry === undefined && mode.syncOnly === true) {
      throw new SourcesError(
        'NOT_LOCKED',
        'the lock file does not pin this source (run `skillgate sources upgrade`)',
        {
          source: source.id,
        },
      );
    }
    let state: SourceStatus['state'];
    if (entry === undefined && !upgrading(source.id) && options.shared !== undefined) {
      // Another replica resolved it first: serve the same commit.
      const held = await options.shared.get(sharedPinKey(source));
      const theirs = held === undefined ? undefined : parseLockEntry(held);
      if (theirs !== undefined && pinsSource(theirs, source)) entry = theirs;
    }
    if (entry === undefined) {
      const resolved = await resolveSource(source, cache, options);
      entry = resolved;
      if (options.shared !== undefined && !upgrading(source.id)) {
        // The first replica to resolve sets the commit for all; a later one serves that instead of its own.
        const held = await options.shared.claim(sharedPinKey(source), JSON.stringify(resolved));
        const theirs = parseLockEntry(held);
        if (theirs !== undefined && pinsSource(theirs, source) && theirs.commit !== resolved.commit)
          entry = theirs;
      }
      if (entry === resolved) {
        options.onInfo?.(
          `source "${source.id}": resolved ${describeRef(source)} to ${entry.commit} (${Object.keys(entry.skills).length} skills, ${entry.digest})`,
        );
        state = 'fetched';
      } else state = await serveLocked(source, entry, cache, options);
      changed =
        changed ||
        locked === undefined ||
        locked.commit !== entry.commit ||
        locked.digest !== entry.digest ||
        !pinsSource(locked, source);
    } else {
      state = await serveLocked(source, entry, cache, options);
      if (forced !== undefined) changed = true;
    }
    entries.push(entry);
    roots.push({
      dir: servedDir(cache, source, entry.commit),
      origin: { source: source.id, commit: entry.commit },
      ...(source.skills === undefined ? {} : { skills: source.skills }),
    });
    statuses.push({ id: source.id, kind, state, commit: entry.commit, digest: entry.digest });
  }
  const next: Lock = { version: 1, sources: entries };
  // Pins of sources no longer configured are dropped only when something else changed the lock anyway.
  if (
    changed ||
    (lock !== undefined && lock.sources.length !== entries.length && options.sources.length > 0)
  ) {
    try {
      await writeLockFile(options.lockFile, next);
      options.onInfo?.(`lock file written: ${options.lockFile}`);
    } catch (error) {
      // A read-only config folder (an image) still serves; replicas then agree through the state backend.
      options.onWarning?.(
        `cannot write the lock file ${options.lockFile} (${(error as NodeJS.ErrnoException).code ?? String(error)}): the pins above hold for this run only`,
      );
    }
  }
  return { roots, statuses, lock: next };
}

const describeRef = (source: SourceDefinition): string =>
  isGitSource(source) ? (source.ref ?? 'HEAD') : 'the archive';

/** The content digests of the skills in a materialised folder, loaded with the gateway's own rules. */
async function digestOf(dir: string, source: SourceDefinition, commit: string, options: SourcesOptions) {
  const { skills } = await loadSkills({
    ...options.load,
    digests: true,
    roots: [],
    sources: [
      {
        dir,
        origin: { source: source.id, commit },
        ...(source.skills === undefined ? {} : { skills: source.skills }),
      },
    ],
  });
  return contentDigest(skills);
}

/** Serves a locked entry: from the cache when it verifies, else fetched again and verified. */
async function serveLocked(
  source: SourceDefinition,
  entry: LockEntry,
  cache: SourceCache,
  options: SourcesOptions,
): Promise<'cached' | 'fetched'> {
  const pin = cachePin(source, entry.commit);
  if (await cache.has(pin)) {
    const found = await digestOf(servedDir(cache, source, entry.commit), source, entry.commit, options);
    if (found.digest === entry.digest) {
      options.onInfo?.(`source "${source.id}": serving ${entry.commit} from the verified cache`);
      return 'cached';
    }
    options.onWarning?.(
      `source "${source.id}": the cached copy of ${entry.commit} does not match the lock's digest (${found.digest}, locked ${entry.digest}); fetching it again`,
    );
    await cache.discard(pin);
  }
  await fetchInto(source, entry.commit, cache, options);
  const fetched = await digestOf(servedDir(cache, source, entry.commit), source, entry.commit, options);
  if (fetched.digest !== entry.digest) {
    await cache.discard(pin);
    throw new SourcesError(
      'DIGEST_MISMATCH',
      `the content of ${entry.commit} is ${fetched.digest}, not the locked ${entry.digest}: refused (run \`skillgate sources upgrade ${source.id}\` to accept it)`,
      { source: source.id },
    );
  }
  options.onInfo?.(`source "${source.id}": fetched ${entry.commit}, digest verified`);
  return 'fetched';
}

/** Resolves a source's ref (or its archive), fetches it and computes the entry the lock will hold. */
async function resolveSource(
  source: SourceDefinition,
  cache: SourceCache,
  options: SourcesOptions,
): Promise<LockEntry> {
  const want = isGitSource(source) ? (source.ref ?? 'HEAD') : `sha256:${source.sha256.toLowerCase()}`;
  const commit = await fetchInto(source, want, cache, options);
  const { digest, skills } = await digestOf(servedDir(cache, source, commit), source, commit, options);
  return { id: source.id, source: lockedSource(source), commit, digest, skills };
}

/**
 * Fetches `want` (a ref or commit; an archive's pin) afresh and puts it in the cache; returns the commit. It
 * never takes a cached entry on trust: without a lock entry nothing could tell an entry edited on disk from the
 * real content, and its digest would become the pin.
 */
async function fetchInto(
  source: SourceDefinition,
  want: string,
  cache: SourceCache,
  options: SourcesOptions,
): Promise<string> {
  const deadline = Date.now() + options.timeoutMs;
  await mkdir(join(options.cacheDir, 'tmp'), { recursive: true, mode: 0o700 });
  const work = join(options.cacheDir, 'tmp', `fetch-${randomBytes(8).toString('hex')}`);
  try {
    let commit = want;
    if (isGitSource(source)) {
      const context: GitContext = {
        env: options.env,
        deadline,
        limits: options.limits,
        workDir: options.cacheDir,
      };
      commit = await fetchGitCommit(source, want, work, context);
      await measureTree(work, options.limits, source.id);
    } else {
      const file = `${work}.download`;
      try {
        await downloadArchive(source, { file, deadline, maxBytes: options.limits.maxBytes });
        await unpackArchive({
          source: source.id,
          file,
          format: archiveFormat(source.archive),
          dest: work,
          limits: options.limits,
        });
      } finally {
        await rm(file, { force: true });
      }
    }
    const fresh = isGitSource(source) ? work : join(work, relPath(source));
    await requirePath(source, fresh);
    await admit(source, commit, work, cache, options);
    return commit;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Puts a freshly fetched entry (`work`) in the cache. An entry already there (another process fetched it first,
 * or it was edited on disk) stays only when it holds what was fetched; one that differs is replaced.
 */
async function admit(
  source: SourceDefinition,
  commit: string,
  work: string,
  cache: SourceCache,
  options: SourcesOptions,
): Promise<void> {
  const pin = cachePin(source, commit);
  if (await cache.has(pin)) {
    const served = isGitSource(source) ? work : join(work, relPath(source));
    const fetched = await digestOf(served, source, commit, options);
    const cached = await digestOf(servedDir(cache, source, commit), source, commit, options);
    if (cached.digest === fetched.digest) return;
    options.onWarning?.(
      `source "${source.id}": the cached copy of ${commit} does not match what was fetched (${cached.digest}, fetched ${fetched.digest}); replacing it`,
    );
    await cache.discard(pin);
  }
  await cache.write(pin, (dir) => rename(work, dir));
}

/** Refuses a source whose `path` is not a folder of what was fetched. */
async function requirePath(source: SourceDefinition, dir: string): Promise<void> {
  const ok = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!ok)
    throw new SourcesError('PATH_MISSING', `path "${relPath(source)}" is not a folder of the source`, {
      source: source.id,
    });
}
