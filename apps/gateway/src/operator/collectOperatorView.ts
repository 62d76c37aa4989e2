import type { Catalog, Disclosure, Problem, UpstreamSnapshot } from '@skillgate/skills';
import type { JobRecord, SessionRecord, UsageEvent, UsageFigures } from '@skillgate/state';
import type { PrincipalDirectory } from '../auth/principalDirectory.js';
import type { DisclosurePolicy } from '../disclosure/disclosurePolicy.js';
import { type SkillSurfaces, sharedSurfaceTools, skillSurfaces } from '../disclosure/skillSurfaces.js';
import type { RecentCall, RecentCalls } from '../observability/recentCalls.js';
import type { SecretRedactor } from '../observability/redactSecrets.js';
import type { UsageCounter } from '../observability/usageCounter.js';

/** Rows each section shows at most; the rest is one "N more" line, so any catalog gives a bounded page. */
export const PAGE_LIMITS = {
  skills: 1000,
  filesPerSkill: 50,
  problems: 200,
  upstreams: 100,
  toolsPerUpstream: 200,
  principalTools: 2000,
  sessions: 50,
  jobs: 50,
  calls: 200,
  usage: 200,
  queries: 100,
} as const;

/** Where the page reads what it shows; built by createGateway (docs/operator.md). */
export interface OperatorSources {
  readonly catalogs: { readonly current: Catalog };
  readonly disclosure: Pick<DisclosurePolicy, 'usableSkillNames' | 'previewTools'>;
  readonly principals: PrincipalDirectory;
  /** The mode a new 2025-era session gets (skills.disclosure; client profiles may pick another). */
  readonly sessionDisclosure: Disclosure;
  /** The mode of 2026-07-28 requests (skills.modern_disclosure). */
  readonly modernDisclosure: Disclosure;
  readonly upstreams: () => readonly UpstreamSnapshot[];
  readonly sessions: {
    count(): Promise<number>;
    recent(limit: number): Promise<readonly SessionRecord[]>;
  };
  readonly jobs: {
    countRunning(): Promise<number>;
    newestRunning(limit: number): Promise<readonly JobRecord[]>;
  };
  readonly recentCalls: RecentCalls;
  /** Skill usage of every replica sharing the state backend. */
  readonly usage: Pick<UsageCounter, 'totals'>;
  /** The effective config, already redacted. */
  readonly effectiveConfig: string;
  /** The gateway's redactor (tokens, upstream credentials): cuts secrets from anything else shown, such as errors. */
  readonly redact: SecretRedactor;
  /** Where sessions and jobs live (`memory` or `redis`): the page says what is per replica. */
  readonly stateBackend: string;
  /** Stored connections per provider id (docs/credentials.md); undefined when no provider is configured. */
  readonly connectionCounts?: () => Promise<Readonly<Record<string, number>>>;
}

/** One skill row. */
export interface SkillRow {
  readonly name: string;
  readonly description: string;
  readonly dir: string;
  readonly upstream?: string;
  /** The source a fetched skill comes from and its pinned commit (docs/sources.md). */
  readonly origin?: { readonly source: string; readonly commit: string };
  readonly files: readonly { readonly path: string; readonly size: number; readonly isScript: boolean }[];
  readonly moreFiles: number;
  readonly problems: readonly Problem[];
  readonly surfaces: SkillSurfaces;
}

/** One skill's usage over the kept window, every principal together. */
export interface UsageRow {
  readonly skill: string;
  readonly info: number;
  readonly runsOk: number;
  readonly runsError: number;
  readonly runsLimit: number;
  readonly reads: number;
  readonly upstream: number;
  readonly total: number;
  /** Principals that used it, most active first (capped). */
  readonly principals: readonly string[];
}

/** Skill usage as the page shows it. */
export interface UsageView {
  /** Catalog skills that were used, most used first (capped). */
  readonly used: readonly UsageRow[];
  /** Catalog skills with no use in the window. */
  readonly neverUsed: readonly string[];
  readonly emptySearches: number;
  readonly queries: readonly { readonly text: string; readonly n: number }[];
}

/** The principal view: what one named principal sees. */
export interface PrincipalView {
  readonly name: string;
  readonly skills: readonly string[];
  readonly sessionTools: readonly string[];
  readonly modernTools: readonly string[];
}

/** Everything the page renders, gathered in one place (rendering is then pure). */
export interface OperatorView {
  readonly viewer: string;
  readonly query: string;
  readonly skillsTotal: number;
  readonly skillsMatched: number;
  readonly skills: readonly SkillRow[];
  /** Problems not about one listed skill (unreadable roots, refused skills), capped. */
  readonly otherProblems: readonly Problem[];
  readonly problemsTotal: number;
  readonly shared: SkillSurfaces;
  readonly sessionDisclosure: Disclosure;
  readonly modernDisclosure: Disclosure;
  readonly upstreams: readonly UpstreamSnapshot[];
  readonly principalNames: readonly string[];
  readonly principal: PrincipalView | undefined;
  readonly sessionsOpen: number;
  readonly sessions: readonly SessionRecord[];
  readonly jobsRunning: number;
  readonly jobs: readonly JobRecord[];
  readonly calls: readonly RecentCall[];
  readonly callsTotal: number;
  readonly callsCapacity: number;
  readonly config: string;
  readonly stateBackend: string;
  readonly usage: UsageView;
  /** Connections per provider, most first (counts only, never a value); undefined without providers. */
  readonly connections: readonly { readonly provider: string; readonly count: number }[] | undefined;
}

/** What the request asked for: a skill filter and a principal to look through. */
export interface OperatorQuery {
  readonly q?: string;
  readonly as?: string;
}

const names = (tools: readonly { readonly name: string }[]): string[] => tools.map((t) => t.name);

/** Gathers the page's data: one catalog snapshot, the stores' counts and newest rows, this replica's calls. */
export async function collectOperatorView(
  sources: OperatorSources,
  query: OperatorQuery,
  viewer: string,
): Promise<OperatorView> {
  const catalog = sources.catalogs.current;
  const modern = sources.modernDisclosure;
  const needle = (query.q ?? '').trim().toLowerCase();
  const matched = [...catalog.skills.values()].filter(
    (e) =>
      needle === '' ||
      e.skill.name.toLowerCase().includes(needle) ||
      e.skill.description.toLowerCase().includes(needle),
  );
  const problemsBySkill = new Map<string, Problem[]>();
  const other: Problem[] = [];
  for (const p of [...catalog.problems, ...catalog.extension.problems]) {
    if (p.skill !== undefined && catalog.skills.has(p.skill)) {
      const list = problemsBySkill.get(p.skill) ?? [];
      list.push(p);
      problemsBySkill.set(p.skill, list);
    } else other.push(p);
  }
  const skills = matched.slice(0, PAGE_LIMITS.skills).map(
    (entry): SkillRow => ({
      name: entry.skill.name,
      description: entry.skill.description,
      dir: entry.skill.dir,
      ...(entry.upstream === undefined ? {} : { upstream: entry.upstream }),
      ...(entry.skill.origin === undefined ? {} : { origin: entry.skill.origin }),
      files: entry.skill.files
        .slice(0, PAGE_LIMITS.filesPerSkill)
        .map((f) => ({ path: f.path, size: f.size, isScript: f.isScript })),
      moreFiles: Math.max(0, entry.skill.files.length - PAGE_LIMITS.filesPerSkill),
      problems: (problemsBySkill.get(entry.skill.name) ?? []).slice(0, PAGE_LIMITS.problems),
      surfaces: skillSurfaces(catalog, entry, modern),
    }),
  );
  const principalName = query.as ?? sources.principals.names[0];
  const principal = principalName === undefined ? undefined : sources.principals.byName(principalName);
  const [sessionsOpen, sessions, jobsRunning, jobs, usage, connectionCounts] = await Promise.all([
    sources.sessions.count(),
    sources.sessions.recent(PAGE_LIMITS.sessions),
    sources.jobs.countRunning(),
    sources.jobs.newestRunning(PAGE_LIMITS.jobs),
    sources.usage.totals(),
    sources.connectionCounts?.(),
  ]);
  // An upstream's error text comes from the network: it never carries a configured secret onto the page.
  const upstreams = sources
    .upstreams()
    .map((u) => (u.lastError === undefined ? u : { ...u, lastError: sources.redact(u.lastError) }));
  return {
    viewer,
    query: query.q ?? '',
    skillsTotal: catalog.skills.size,
    skillsMatched: matched.length,
    skills,
    otherProblems: other.slice(0, PAGE_LIMITS.problems),
    problemsTotal: catalog.problems.length + catalog.extension.problems.length,
    shared: sharedSurfaceTools(catalog, modern),
    sessionDisclosure: sources.sessionDisclosure,
    modernDisclosure: modern,
    upstreams,
    principalNames: sources.principals.names,
    principal:
      principal === undefined
        ? undefined
        : {
            name: principal.name,
            skills: sources.disclosure.usableSkillNames(catalog, principal),
            sessionTools: names(
              sources.disclosure.previewTools(catalog, principal, sources.sessionDisclosure),
            ),
            modernTools: names(sources.disclosure.previewTools(catalog, principal, modern)),
          },
    sessionsOpen,
    sessions,
    jobsRunning,
    jobs,
    calls: sources.recentCalls.newest(PAGE_LIMITS.calls),
    callsTotal: sources.recentCalls.total,
    callsCapacity: sources.recentCalls.capacity,
    config: sources.effectiveConfig,
    stateBackend: sources.stateBackend,
    usage: usageView(catalog, usage),
    connections:
      connectionCounts === undefined
        ? undefined
        : Object.entries(connectionCounts)
            .map(([provider, count]) => ({ provider, count }))
            .sort((a, b) => b.count - a.count || a.provider.localeCompare(b.provider)),
  };
}

const EVENT_COLUMN = {
  info: 'info',
  run_ok: 'runsOk',
  run_error: 'runsError',
  run_limit: 'runsLimit',
  read: 'reads',
  upstream: 'upstream',
} as const satisfies Record<UsageEvent, keyof UsageRow>;

/** Per-skill rows of the current catalog's skills (a removed skill's counts are not shown), most used first. */
function usageView(catalog: Catalog, figures: UsageFigures): UsageView {
  type Mutable = { -readonly [K in keyof UsageRow]: UsageRow[K] };
  const rows = new Map<string, Mutable>();
  const byPrincipal = new Map<string, Map<string, number>>();
  for (const c of figures.counts) {
    if (!catalog.skills.has(c.skill)) continue;
    const row = rows.get(c.skill) ?? {
      skill: c.skill,
      info: 0,
      runsOk: 0,
      runsError: 0,
      runsLimit: 0,
      reads: 0,
      upstream: 0,
      total: 0,
      principals: [],
    };
    row[EVENT_COLUMN[c.event]] += c.n;
    row.total += c.n;
    rows.set(c.skill, row);
    const principals = byPrincipal.get(c.skill) ?? new Map<string, number>();
    principals.set(c.principal, (principals.get(c.principal) ?? 0) + c.n);
    byPrincipal.set(c.skill, principals);
  }
  for (const [skill, principals] of byPrincipal) {
    const row = rows.get(skill);
    if (row !== undefined)
      row.principals = [...principals]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 10)
        .map(([name]) => name);
  }
  const used = [...rows.values()].sort((a, b) => b.total - a.total || a.skill.localeCompare(b.skill));
  return {
    used: used.slice(0, PAGE_LIMITS.usage),
    neverUsed: [...catalog.skills.keys()].filter((name) => !rows.has(name)).sort(),
    emptySearches: figures.emptySearches,
    queries: figures.queries.slice(0, PAGE_LIMITS.queries),
  };
}
