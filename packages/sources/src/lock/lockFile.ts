import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { parse, stringify } from 'yaml';
import { z } from 'zod';
import { SourcesError } from '../sourcesError.js';
import { isGitSource, type Lock, type LockEntry, type SourceDefinition } from '../sourceTypes.js';

const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/);

const sourceSchema = z.union([
  z.strictObject({
    id: z.string(),
    git: z.string(),
    ref: z.string().optional(),
    path: z.string().optional(),
    skills: z.array(z.string()).optional(),
    token_env: z.string().optional(),
  }),
  z.strictObject({
    id: z.string(),
    archive: z.string(),
    sha256: z.string(),
    path: z.string().optional(),
    skills: z.array(z.string()).optional(),
  }),
]);

const entrySchema = z.strictObject({
  id: z.string(),
  source: sourceSchema,
  commit: z.string().regex(/^([0-9a-f]{40}|sha256:[0-9a-f]{64})$/),
  digest,
  skills: z.record(z.string(), digest),
});

const lockSchema = z.strictObject({ version: z.literal(1), sources: z.array(entrySchema) });

/** A lock entry another replica shared (JSON), or undefined when it is not one. */
export function parseLockEntry(text: string): LockEntry | undefined {
  try {
    const parsed = entrySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const HEADER =
  '# skillgate lock file: the commit and content digest each source is served at (docs/sources.md).\n' +
  '# Written by skillgate; `skillgate sources upgrade` moves a pin. Commit it beside the config.\n';

/** The lock at `file`, or undefined when there is none; a malformed lock is an error, never ignored. */
export async function readLockFile(file: string): Promise<Lock | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SourcesError('LOCK_INVALID', `cannot read the lock file ${file}`, { cause: error });
  }
  let parsed: z.infer<typeof lockSchema>;
  try {
    parsed = lockSchema.parse(parse(text));
  } catch (error) {
    throw new SourcesError('LOCK_INVALID', `the lock file ${file} is malformed (delete it to re-resolve)`, {
      cause: error,
    });
  }
  return parsed;
}

/** Writes the lock atomically (a temporary file renamed over it), entries in config order. */
export async function writeLockFile(file: string, lock: Lock): Promise<void> {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, HEADER + stringify(lock, { lineWidth: 0 }), { mode: 0o644 });
  await rename(temp, file);
}

const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, child]) => child !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, child]) => [key, canonical(child)]),
  );
};

/**
 * The source as the lock keeps it: an archive URL without its query string and fragment. A pre-signed URL's
 * signature was written into the lock (committed to git beside the config), and a rotated signature would
 * re-resolve a pin its sha256 still holds.
 */
export const lockedSource = (source: SourceDefinition): SourceDefinition => {
  if (isGitSource(source)) return source;
  const cut = source.archive.search(/[?#]/);
  return cut < 0 ? source : { ...source, archive: source.archive.slice(0, cut) };
};

/** True when the lock entry pins exactly this configured source (any edit of it re-resolves). */
export const pinsSource = (entry: LockEntry, source: SourceDefinition): boolean =>
  JSON.stringify(canonical(entry.source)) === JSON.stringify(canonical(lockedSource(source)));
