// A V8 CPU profile of the gateway (servers.ts BENCH_PROFILE=1) summed by area: the socket write, node's HTTP
// and streams, Fastify, each gateway folder, each package, GC. Shared by the hot-path and upstream profilers
// (profileHotPaths.ts, profileUpstreams.ts).

/** One node of a V8 CPU profile. */
interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
}

/** A V8 CPU profile, as Profiler.stop returns it. */
export interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
}

const NATIVE_WRITES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String']);

/** The area a sampled function belongs to; undefined for idle time. */
function areaOf({ functionName, url }: ProfileNode['callFrame']): string | undefined {
  if (functionName === '(idle)') return undefined;
  if (functionName === '(garbage collector)') return 'GC';
  if (url === '') return NATIVE_WRITES.has(functionName) ? 'socket write (syscall)' : 'V8 and native';
  if (/^node:(_http|net|internal\/(streams|stream_base|http))/.test(url)) return 'node http and streams';
  if (url.startsWith('node:')) return 'node other';
  const gateway = /apps\/gateway\/dist\/([^/]+)\//.exec(url);
  if (gateway !== null) return `gateway ${gateway[1]}/`;
  const workspace = /packages\/([^/]+)\/dist\//.exec(url);
  if (workspace !== null) return `@skillgate/${workspace[1]}`;
  const dependency = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (dependency !== null)
    return ['fastify', 'find-my-way', 'avvio'].includes(dependency[1] ?? '')
      ? 'fastify'
      : (dependency[1] ?? url);
  return 'other';
}

/**
 * How far areas are split into functions: not at all, the gateway and its packages (BENCH_FUNCTIONS=1:
 * which functions an area's time is in), or every area (BENCH_FUNCTIONS=all: node's and dependencies' too).
 */
export type FunctionSplit = 'none' | 'gateway' | 'all';

/** The split BENCH_FUNCTIONS asks for. */
export function functionSplit(value: string | undefined): FunctionSplit {
  return value === 'all' ? 'all' : value === '1' ? 'gateway' : 'none';
}

/** Busy samples per area (or per function of it, as `split` says), as shares of all busy samples. */
function areas(profile: Profile, split: FunctionSplit = 'none'): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const counts = new Map<string, number>();
  let busy = 0;
  for (const id of profile.samples) {
    const node = byId.get(id);
    const area = node === undefined ? 'other' : areaOf(node.callFrame);
    if (area === undefined) continue;
    busy += 1;
    const splits =
      split === 'all' ||
      (split === 'gateway' && (area.startsWith('gateway') || area.startsWith('@skillgate')));
    const key =
      splits && node !== undefined
        ? `${area} ${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/(dist|node_modules)\//, '')}`
        : area;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return new Map([...counts].map(([area, n]) => [area, n / busy]));
}

/** Prints a profile's areas (or functions) as CPU µs per request, largest first. */
export function printAreas(
  title: string,
  profile: Profile,
  cpuPerRequest: number,
  split: FunctionSplit,
): void {
  const shares = [...areas(profile, split)].sort((a, b) => b[1] - a[1]);
  process.stdout.write(`\n${title}\n`);
  for (const [area, share] of shares.filter(([, s]) => s >= (split === 'none' ? 0.01 : 0.002)))
    process.stdout.write(
      `  ${(share * cpuPerRequest).toFixed(1).padStart(5)} µs  ${(share * 100).toFixed(0).padStart(3)} %  ${area}\n`,
    );
}
