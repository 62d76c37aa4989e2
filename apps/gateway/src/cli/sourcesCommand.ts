import {
  isGitSource,
  materializeSources,
  readLockFile,
  resolveRemoteRef,
  type SourceDefinition,
} from '@skillgate/sources';
import { sourcesOptions } from '../compose/sourcesOptions.js';
import { type SourcesSettings, sourcesSettings } from '../compose/sourcesSettings.js';
import { configFrom, type Flags } from './configFrom.js';
import { UsageError } from './usage.js';

/** One source as `skillgate sources` prints it. */
interface SourceLine {
  readonly id: string;
  readonly kind: 'git' | 'archive';
  /** The ref (git) or URL (archive) as configured. */
  readonly ref: string;
  readonly commit: string | null;
  readonly digest: string | null;
  /** The remote ref moved past the pin; null when unknown (not locked, unreachable) or not a git source. */
  readonly behind: boolean | null;
  readonly error?: string;
}

const refOf = (source: SourceDefinition): string =>
  isGitSource(source) ? `${source.git}#${source.ref ?? 'HEAD'}` : source.archive;

async function sourceLines(settings: SourcesSettings): Promise<SourceLine[]> {
  const options = sourcesOptions(settings, process.env);
  const lock = await readLockFile(options.lockFile);
  const lines: SourceLine[] = [];
  for (const source of options.sources) {
    const entry = lock?.sources.find((e) => e.id === source.id);
    const base = {
      id: source.id,
      kind: isGitSource(source) ? ('git' as const) : ('archive' as const),
      ref: refOf(source),
      commit: entry?.commit ?? null,
      digest: entry?.digest ?? null,
    };
    if (!isGitSource(source) || entry === undefined) {
      lines.push({ ...base, behind: null, ...(entry === undefined ? { error: 'not locked' } : {}) });
      continue;
    }
    try {
      const head = await resolveRemoteRef(source, {
        env: process.env,
        deadline: Date.now() + options.timeoutMs,
        limits: options.limits,
        workDir: process.cwd(),
      });
      lines.push({ ...base, behind: head !== entry.commit });
    } catch (error) {
      lines.push({ ...base, behind: null, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return lines;
}

const print = (lines: readonly SourceLine[], json: boolean): void => {
  if (json) {
    process.stdout.write(`${JSON.stringify(lines, null, 2)}\n`);
    return;
  }
  for (const l of lines) {
    const state = l.error ?? (l.behind === true ? 'behind' : l.behind === false ? 'current' : 'pinned');
    process.stdout.write(
      `${l.id.padEnd(16)} ${l.kind.padEnd(7)} ${(l.commit ?? '-').padEnd(46)} ${state}  ${l.ref}\n`,
    );
    if (l.digest !== null) process.stdout.write(`${''.padEnd(25)}${l.digest}\n`);
  }
};

/**
 * `skillgate sources [check | upgrade [ID...] | sync]`: the pins and whether each remote moved; `check`
 * exits 2 when one moved (or is not locked); `upgrade` re-resolves and rewrites the lock; `sync` fetches
 * exactly the lock (docs/sources.md).
 */
export async function sourcesCommand(flags: Flags, args: readonly string[]): Promise<number> {
  const [action, ...ids] = args;
  const settings = sourcesSettings(await configFrom(flags));
  if (settings.sources.length === 0) {
    // A generic image build step (`sources sync`) must pass for a config without sources.
    process.stderr.write('skillgate: no sources.list configured: nothing to do\n');
    return 0;
  }
  const json = flags.json === true;
  if (action === undefined || action === 'check') {
    if (action === undefined && ids.length > 0) throw new UsageError(`unexpected argument: ${ids[0]}`);
    const lines = await sourceLines(settings);
    print(lines, json);
    if (action === undefined) return 0;
    return lines.some((l) => l.behind === true || l.commit === null)
      ? 2
      : lines.some((l) => l.error !== undefined)
        ? 1
        : 0;
  }
  const options = sourcesOptions(settings, process.env);
  const known = new Set(options.sources.map((s) => s.id));
  const unknown = ids.find((id) => !known.has(id));
  if (unknown !== undefined) throw new UsageError(`no source with id "${unknown}"`);
  if (action !== 'upgrade' && action !== 'sync') throw new UsageError(`unknown sources action: ${action}`);
  if (action === 'sync' && ids.length > 0) throw new UsageError(`unexpected argument: ${ids[0]}`);
  const info = (line: string) => process.stderr.write(`${line}\n`);
  const done = await materializeSources(
    { ...options, onInfo: info, onWarning: info },
    action === 'sync' ? { syncOnly: true } : { upgrade: ids.length === 0 ? 'all' : ids },
  );
  if (json) process.stdout.write(`${JSON.stringify(done.statuses, null, 2)}\n`);
  else
    for (const s of done.statuses)
      process.stdout.write(`${s.id.padEnd(16)} ${s.state.padEnd(8)} ${s.commit} ${s.digest}\n`);
  return 0;
}
