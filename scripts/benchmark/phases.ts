// Every phase of `pnpm bench`, in the order a full run takes them. A phase measures one thing against a
// reference started in the same run and reports rows through its context (context.ts); `--only a,b` runs
// some of them, `--list` names them. Add a phase here, with its targets in targets.ts and its table's
// markers in docs/benchmarks.md (docTables.ts renders them).
import { catalogBuildPhase } from './catalogBuildPhase.js';
import type { BenchContext } from './context.js';
import { credentialsBench } from './credentialsPhase.js';
import { directPathsPhase } from './directPathsPhase.js';
import { erasPhase } from './erasPhase.js';
import { hotPathsPhase } from './hotPathsPhase.js';
import { httpPhase } from './httpPhase.js';
import { oauthPhase } from './oauth.js';
import { operatorPagePhase } from './operatorPage.js';
import { reloadStallBench } from './reloadStallPhase.js';
import { replicasPhase } from './replicas.js';
import { sandboxRunsBench } from './sandboxRunsPhase.js';
import { scalePhase } from './scalePhase.js';
import { scriptsPhase } from './scriptsPhase.js';
import { searchFloodBench } from './searchFloodPhase.js';
import { searchBench } from './searchPhase.js';
import { skillsListPhase } from './skillsList.js';
import { sourcesBench } from './sourcesPhase.js';
import { tokensPhase } from './tokensPhase.js';
import { tracingPhase } from './tracingPhase.js';
import { upstreamMemoryPhase } from './upstreamMemory.js';
import { upstreamOverheadPhase, upstreamPeersPhase } from './upstreamPhase.js';
import { upstreamTokensPhase } from './upstreamTokens.js';

/** One phase of the bench. */
export interface BenchPhase {
  /** What `--only` takes. */
  readonly name: string;
  /** One line for `--list`. */
  readonly description: string;
  run(context: BenchContext): Promise<void>;
}

/** A phase whose function returns its raw figures: they are kept under `key` in latest.json. */
const keeping =
  (key: string, measure: (context: BenchContext) => Promise<unknown>) =>
  async (context: BenchContext): Promise<void> =>
    context.result(key, await measure(context));

/** The phases of a full run, in order. */
export const PHASES: readonly BenchPhase[] = [
  {
    name: 'tokens',
    description: 'first tools/list tokens by disclosure mode against eager (examples, 100 and 1,000 skills)',
    run: tokensPhase,
  },
  {
    name: 'upstream-tokens',
    description: "upstream servers as auto skills: each era's first list against listing them directly",
    run: upstreamTokensPhase,
  },
  {
    name: 'upstream-overhead',
    description: 'an upstream tool through skillgate against calling it directly (HTTP and stdio)',
    run: upstreamOverheadPhase,
  },
  {
    name: 'upstream-peers',
    description: 'a stdio server on HTTP: skillgate against supergateway and mcp-proxy',
    run: upstreamPeersPhase,
  },
  {
    name: 'upstream-memory',
    description: 'memory per upstream connection, and per session by the upstream tool count',
    run: upstreamMemoryPhase,
  },
  {
    name: 'http',
    description:
      '2025 sessions: tools/list and get_info against the SDK-style server and a bare Fastify route',
    run: httpPhase,
  },
  {
    name: 'replicas',
    description:
      'Redis backend against memory, two replicas behind HAProxy against one, Redis bytes per session',
    run: replicasPhase,
  },
  {
    name: 'eras',
    description: '2026-07-28 catalog list against the 2025 list and a bare route with the same bytes',
    run: erasPhase,
  },
  {
    name: 'hot-paths',
    description: 'every hot path of both eras against a raw node:http server replaying its bytes',
    run: hotPathsPhase,
  },
  {
    name: 'direct-paths',
    description: '2025-session direct answers against the SDK path on the same requests (issue 41, item 3)',
    run: directPathsPhase,
  },
  {
    name: 'tracing',
    description: 'tracing off against a build before tracing, and every request traced',
    run: tracingPhase,
  },
  {
    name: 'scale',
    description: 'start-up, peak RSS, memory per idle session and session open rate at 1,000 (10,000) skills',
    run: scalePhase,
  },
  {
    name: 'catalog-build',
    description: 'catalog build of 1,000 skills x 10 files with digests against without',
    run: catalogBuildPhase,
  },
  {
    name: 'skills-list',
    description: "the Skills extension's skills/list pages against modern tools/list",
    run: skillsListPhase,
  },
  {
    name: 'operator-page',
    description: 'the operator page of 1,000 skills: server time and a headless Chromium load',
    run: operatorPagePhase,
  },
  { name: 'oauth', description: 'modern tools/list with a JWT against a static token', run: oauthPhase },
  {
    name: 'scripts',
    description: 'a trivial script through the run tool, sandbox off and bwrap, against execa',
    run: scriptsPhase,
  },
  {
    name: 'sandbox-runs',
    description: 'script runs at 1 and 4 in flight against a raw server spawning the same script',
    run: keeping('sandbox_runs', sandboxRunsBench),
  },
  {
    name: 'search',
    description: 'search quality (ETOM dev set), first context, latency, index memory and stalls',
    run: keeping('search', searchBench),
  },
  {
    name: 'search-flood',
    description: 'search under a flood of long queries, and 40 allow-lists searching in turn',
    run: keeping('search_flood', searchFloodBench),
  },
  {
    name: 'sources',
    description: 'a git source: first start, warm start from the verified cache, cache size',
    run: keeping('sources', sourcesBench),
  },
  {
    name: 'credentials',
    description:
      "an upstream call with the caller's own credential against a shared header; connect round trip",
    run: keeping('credentials', credentialsBench),
  },
  {
    name: 'reload',
    description: "clients' p99 and the event loop while 1,000 skills arrive in a watched root",
    run: keeping('reload', reloadStallBench),
  },
];
