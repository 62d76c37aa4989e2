// The tables of docs/benchmarks.md, rendered from a results file (docs/bench-results.json) between markers:
//   <!-- bench:table phase-a phase-b -->
//   ...generated...
//   <!-- /bench:table -->
// The prose around them is written by hand. `pnpm bench:docs` merges a run's bench-results/latest.json into
// docs/bench-results.json (the phases that run replace their earlier rows) and renders;
// apps/gateway/test/docs/benchmarksDoc.test.ts fails when the doc's tables differ from what this renders.
// No imports beyond the types: the test reads it without the bench's dependencies.
import type { BenchRow } from './context.js';

/** One phase's latest rows in the committed results file, with the run they come from. */
export interface PhaseRun {
  readonly timestamp: string;
  readonly quick: boolean;
  /** One-minute load average at the start and the end of the run (the machine is shared). */
  readonly load_average: readonly number[];
  readonly machine: { readonly cpu: string; readonly cores: number; readonly node: string };
  readonly rows: ReadonlyArray<Omit<BenchRow, 'phase'>>;
}

/** docs/bench-results.json: each phase's latest run. */
export interface CommittedResults {
  readonly phases: Readonly<Record<string, PhaseRun>>;
}

/** What a run writes to bench-results/latest.json that the docs use (index.ts writes more). */
export interface RunResults {
  readonly timestamp: string;
  readonly quick: boolean;
  readonly load_average: readonly number[];
  readonly machine: PhaseRun['machine'];
  readonly phases: readonly string[];
  readonly rows: readonly BenchRow[];
}

/** The committed results with every phase of `run` replaced by that run's rows. */
export function mergeRun(committed: CommittedResults, run: RunResults): CommittedResults {
  const phases: Record<string, PhaseRun> = { ...committed.phases };
  for (const phase of run.phases) {
    phases[phase] = {
      timestamp: run.timestamp,
      quick: run.quick,
      load_average: run.load_average,
      machine: { cpu: run.machine.cpu, cores: run.machine.cores, node: run.machine.node },
      rows: run.rows.filter((r) => r.phase === phase).map(({ phase: _, ...row }) => row),
    };
  }
  const sorted = Object.fromEntries(Object.entries(phases).sort(([a], [b]) => a.localeCompare(b)));
  return { phases: sorted };
}

const MARKER = /<!-- bench:table ([a-z0-9 -]+) -->\n[\s\S]*?<!-- \/bench:table -->/g;
const COLUMNS = ['metric', 'value', 'reference', 'ratio', 'target', 'verdict'] as const;

/** The phases the doc's markers name, in order. */
export function phasesInDoc(doc: string): string[] {
  return [...doc.matchAll(MARKER)].flatMap((m) => (m[1] ?? '').trim().split(/\s+/));
}

/** The doc with every marked table rendered from `results`. */
export function withBenchTables(doc: string, results: CommittedResults): string {
  return doc.replace(MARKER, (_, names: string) => {
    const phases = names.trim().split(/\s+/);
    return `<!-- bench:table ${phases.join(' ')} -->\n${renderTable(phases, results)}<!-- /bench:table -->`;
  });
}

function renderTable(phases: readonly string[], results: CommittedResults): string {
  const runs = phases.map((name) => [name, results.phases[name]] as const);
  const missing = runs.filter(([, run]) => run === undefined).map(([name]) => name);
  const rows = runs.flatMap(([, run]) => run?.rows ?? []);
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const widths = COLUMNS.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((text, i) => text.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const lines = [
    ...runs.flatMap(([name, run]) => (run === undefined ? [] : [`_${caption(name, run)}_`])),
    ...(missing.length === 0
      ? []
      : [
          `_No results yet for ${missing.join(', ')}: \`pnpm bench --only ${missing.join(',')}\`, then \`pnpm bench:docs\`._`,
        ]),
    '',
    line(COLUMNS),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map((r) => line(COLUMNS.map((c) => cell(r[c])))),
  ];
  return `${lines.join('\n')}\n`;
}

function caption(phase: string, run: PhaseRun): string {
  const [atStart = 0, atEnd = 0] = run.load_average;
  const load = `load average ${atStart.toFixed(1)} → ${atEnd.toFixed(1)}`;
  return `${phase}: ${run.quick ? 'quick run (--quick)' : 'full run'} of ${run.timestamp.slice(0, 10)}, ${run.machine.cores} cores, Node ${run.machine.node}, ${load}`;
}
