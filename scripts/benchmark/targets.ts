// Every threshold that decides a PASS or a MISS in `pnpm bench`, in one place, each with where it was set.
// A phase reports a row with one of these and the figure it measured (context.ts, `Row`); the verdict is
// `pass(measured)`. "Commit" names the commit that set the target (`git show <hash>` has the reasoning).

/** What a phase measured for a target: one figure, or two for a target with two conditions. */
export type Measured = number | readonly [number, number];

/** One row's target: the text printed in the table, the test of the measured figure, and its origin. */
export interface Target {
  readonly text: string;
  readonly pass: (measured: Measured) => boolean;
  readonly source: string;
}

const one = (measured: Measured): number => (typeof measured === 'number' ? measured : measured[0]);
const two = (measured: Measured): readonly [number, number] =>
  typeof measured === 'number' ? [measured, Number.NaN] : measured;

const target = (text: string, pass: (measured: number) => boolean, source: string): Target => ({
  text,
  pass: (measured) => pass(one(measured)),
  source,
});

/** A target of two figures, both of which must hold. */
const pair = (text: string, pass: (a: number, b: number) => boolean, source: string): Target => ({
  text,
  pass: (measured) => pass(...two(measured)),
  source,
});

/** The targets of every phase, by phase. */
export const TARGETS = {
  // tokens: first-list tokens as a share of eager disclosure.
  namespacedShare: target(
    '<= 25%',
    (share) => share <= 0.25,
    'commit 876a181 (the first bench; docs/disclosure.md)',
  ),
  namespacedShareAtScale: target(
    '<= 15%',
    (share) => share <= 0.15,
    'commit 876a181 (1,000 skills; docs/disclosure.md)',
  ),
  overheadPerSkill: target('<= 20', (tokens) => tokens <= 20, 'commit 876a181 (tokens beyond a description)'),
  // upstreams
  upstreamFirstList: target(
    '<= 15%',
    (share) => share <= 0.15,
    'commit af488cc (auto upstreams against listing them directly)',
  ),
  upstreamModernTools: target(
    '<= namespaced + 3',
    (extra) => extra <= 3,
    'commit af488cc (the catalog list adds at most its three tools)',
  ),
  upstreamCallLatency: target('<= +1 ms', (ms) => ms <= 1, 'commit 72bbe1a (docs/upstreams.md)'),
  upstreamCallThroughput: target(
    '>= 80%',
    (share) => share >= 0.8,
    'commit eb063cd (HTTP calls/s against calling directly)',
  ),
  stdioPeers: target(
    '>= 1.2x the faster peer',
    (ratio) => ratio >= 1.2,
    'commit 72bbe1a (supergateway and mcp-proxy)',
  ),
  upstreamSessionHeap: target(
    'within 10%',
    (growth) => Math.abs(growth) <= 0.1,
    'commit 876a181 (memory does not grow with an upstream tool count)',
  ),
  // http: 2025 sessions against the SDK's example server and a bare Fastify route.
  listThroughput: target(
    '>= 4x',
    (ratio) => ratio >= 4,
    'commit 876a181 (tools/list against the SDK-style server)',
  ),
  listLatency: target(
    'p99 < ref p50',
    (p99OverRefP50) => p99OverRefP50 < 1,
    'commit 876a181 (tools/list p99 under the SDK-style p50)',
  ),
  listVsFastify: target(
    '>= 50%',
    (share) => share >= 0.5,
    'commit 876a181 (tools/list against a bare route)',
  ),
  noErrors: target('0', (errors) => errors === 0, 'every load phase: a failed answer voids its figures'),
  // replicas
  redisThroughput: target('>= 70%', (share) => share >= 0.7, 'commit ff086a7 (docs/scale-out.md)'),
  redisLatency: target('<= +1 ms', (ms) => ms <= 1, 'commit ff086a7 (docs/scale-out.md)'),
  // eras
  modernListTokens: target(
    '<= namespaced + 2 tools',
    (extra) => extra <= 0,
    'commit 6db6835 (docs/protocol-eras.md)',
  ),
  modernVsLegacy: target('>= 100%', (share) => share >= 1, 'commit 6db6835 (docs/protocol-eras.md)'),
  modernVsCeiling: target('>= 60%', (share) => share >= 0.6, 'commit 6db6835 (docs/protocol-eras.md)'),
  // hot paths
  hotPathShare: target('>= 0.7 raw', (share) => share >= 0.7, 'commit df08839 (docs/protocol-eras.md)'),
  directPathGain: target(
    '>= 1.10x (else remove)',
    (ratio) => ratio >= 1.1,
    'issue 41, item 3: the 2025-session direct path stays only if it buys 10 % on its paths',
  ),
  // tracing
  tracingOff: target('>= 0.95', (ratio) => ratio >= 0.95, 'commit b41fa3f (docs/observability.md, tracing)'),
  // scale
  sessionMemory: target(
    '<= 32 KiB',
    (bytes) => bytes <= 32 * 1024,
    'commit 876a181 (memory per idle session)',
  ),
  sessionMemoryFlat: target(
    'within 10%',
    (growth) => Math.abs(growth) <= 0.1,
    'commit 876a181 (per-session memory does not grow with the catalog)',
  ),
  sessionOpenRate: target('>= 10x', (ratio) => ratio >= 10, 'commit 876a181 (session open rate)'),
  digestsCost: target('<= 1.5x', (ratio) => ratio <= 1.5, 'commit 331d442 (docs/skills.md, digests)'),
  // skills extension and the operator page
  skillsListPage: target(
    '>= 50%',
    (share) => share >= 0.5,
    'commit 876a181 (skills/list against tools/list)',
  ),
  operatorPageLoad: target('<= 1 s', (ms) => ms <= 1000, 'commit 2d97092 (docs/operator.md)'),
  // oauth
  jwtVsStatic: target('>= 90%', (share) => share >= 0.9, 'commit 8f8e5ef (docs/auth.md)'),
  // scripts
  scriptOverhead: target('<= +5 ms at p50', (ms) => ms <= 5, 'commit 876a181 (docs/sandbox.md, "Cost")'),
  sandboxOverhead: target('<= +15 ms at p50', (ms) => ms <= 15, 'commit fc96330 (docs/sandbox.md, "Cost")'),
  // p50 added over a direct spawn, and runs/s as a share of it.
  bwrapRuns: pair(
    '<= +10 ms, >= 0.5x',
    (addedMs, share) => addedMs <= 10 && share >= 0.5,
    'docs/sandbox.md, "Cost" (goals of the sandboxed-run phase)',
  ),
  unsandboxedRuns: pair(
    '<= +10 ms, >= 0.8x',
    (addedMs, share) => addedMs <= 10 && share >= 0.8,
    'docs/sandbox.md, "Cost" (goals of the sandboxed-run phase)',
  ),
  // search
  // Ours over plain BM25 on the same skills; the aims are the quality goals of the search level.
  searchRecall1: target(
    '> plain BM25, aim 0.88',
    (ratio) => ratio > 1,
    'commit 3f47895 (docs/disclosure.md, search)',
  ),
  searchRecall5: target(
    '> plain BM25, aim 0.96',
    (ratio) => ratio > 1,
    'commit 3f47895 (docs/disclosure.md, search)',
  ),
  searchFirstContext: pair(
    '< 128 tools, < 2,500 tokens',
    (tools, tokens) => tools < 128 && tokens < 2500,
    'commit 3f47895 (docs/disclosure.md, search)',
  ),
  searchNoBuilds: target('no builds', (builds) => builds === 0, 'issue 40, item 5 (one index per catalog)'),
  searchLatency1k: target('p50 <= 1 ms', (ms) => ms <= 1, 'commit 3f47895 (docs/disclosure.md, search)'),
  searchLatency10k: target('p50 <= 5 ms', (ms) => ms <= 5, 'commit 3f47895 (docs/disclosure.md, search)'),
  searchStall: target('stall < 50 ms', (ms) => ms < 50, 'commit 3f47895 (docs/disclosure.md, search)'),
  searchFlood: target('<= 2x', (ratio) => ratio <= 2, 'issue 40, item 4 (commit 2ffc56d)'),
  // sources
  warmStart: target('<= 3x', (ratio) => ratio <= 3, 'commit 4753ebd (docs/sources.md)'),
  cacheBytes: target('<= 1.1x', (ratio) => ratio <= 1.1, 'commit 4753ebd (docs/sources.md)'),
  // reload: a healthy client's p99 while 1,000 skills arrive, against its idle p99.
  reloadStall: pair(
    '<= max(2x idle p99, 250 ms)',
    (reloadP99, idleP99) => reloadP99 <= Math.max(2 * idleP99, 250),
    'issue 40, item 8 (docs/limits.md, "Reloads")',
  ),
  // credentials
  ownCredential: target(
    '<= +5%',
    (change) => change <= 0.05,
    'issue 39 (commit f25c79b, docs/credentials.md)',
  ),
} as const satisfies Record<string, Target>;
