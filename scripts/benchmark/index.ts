// pnpm bench: every phase of phases.ts, each figure next to a reference measured in the same run on the same
// machine; prints the table and writes bench-results/latest.json (`pnpm bench:docs` renders the tables of
// docs/benchmarks.md from it). Options:
//   --only a,b        run those phases (names from --list), in registry order
//   --quick           fewer sizes, rounds and seconds: a smoke run
//   --list            name the phases and exit
//   --before <dir>    another checkout's build beside this one where a phase supports it (tracing, upstreams,
//                     sandbox-runs)
//   --source          the benchmark servers run the TypeScript sources instead of the built packages
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createRecorder, fmt } from './context.js';
import { PHASES } from './phases.js';
import { configureServers } from './support.js';

const REPO = join(import.meta.dirname, '../..');
const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    list: { type: 'boolean', default: false },
    before: { type: 'string' },
    source: { type: 'boolean', default: false },
  },
});

if (values.list) {
  const width = Math.max(...PHASES.map((p) => p.name.length));
  for (const phase of PHASES) process.stdout.write(`${phase.name.padEnd(width)}  ${phase.description}\n`);
  process.exit(0);
}
const wanted = values.only?.split(',').map((name) => name.trim()) ?? [];
const unknown = wanted.filter((name) => !PHASES.some((p) => p.name === name));
if (unknown.length > 0) {
  process.stderr.write(`unknown phase ${unknown.join(', ')}; pnpm bench --list names them\n`);
  process.exit(2);
}
const phases = wanted.length === 0 ? PHASES : PHASES.filter((p) => wanted.includes(p.name));
const quick = values.quick;
configureServers({ source: values.source });

const started = performance.now();
const loadAtStart = loadavg()[0] ?? 0;
const recorder = createRecorder({ quick, repo: REPO, beforeRepo: values.before });
const timings: Record<string, number> = {};
try {
  for (const phase of phases) {
    const context = recorder.contextFor(phase.name);
    context.log(`started (load average ${fmt(loadavg()[0] ?? 0, 1)})`);
    const phaseStarted = performance.now();
    await phase.run(context);
    timings[phase.name] = (performance.now() - phaseStarted) / 1000;
    context.log(`done in ${fmt(timings[phase.name] ?? 0)} s`);
  }
} finally {
  await recorder.cleanUp();
}

const machine = {
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  memory_gib: Math.round(totalmem() / 2 ** 30),
  node: process.version,
};
const { rows, notes, results } = recorder;
const cols = ['group', 'metric', 'value', 'reference', 'ratio', 'target', 'verdict'] as const;
const widths = (k: (typeof cols)[number]) => Math.max(k.length, ...rows.map((r) => r[k].length));
type Cells = Readonly<Record<(typeof cols)[number], string>>;
const line = (r: Cells) => `| ${cols.map((c) => r[c].padEnd(widths(c))).join(' | ')} |`;
const header = Object.fromEntries(cols.map((c) => [c, c])) as Cells;
const table = [
  line(header),
  `|${cols.map((c) => '-'.repeat(widths(c) + 2)).join('|')}|`,
  ...rows.map(line),
].join('\n');
const seconds = (performance.now() - started) / 1000;
const load = [loadAtStart, loadavg()[0] ?? 0];
process.stdout.write(
  `\nskillgate benchmark — ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gib} GiB, Node ${machine.node}${quick ? ' (QUICK)' : ''}\n\n${table}\n\n${notes.map((n) => `${n}\n`).join('')}ran in ${fmt(seconds)} s, load average ${fmt(load[0] ?? 0, 1)} -> ${fmt(load[1] ?? 0, 1)}\n`,
);
await mkdir(join(REPO, 'bench-results'), { recursive: true });
await writeFile(
  join(REPO, 'bench-results', 'latest.json'),
  `${JSON.stringify(
    {
      timestamp: new Date().toISOString(),
      machine,
      quick,
      seconds,
      load_average: load,
      phases: phases.map((p) => p.name),
      phase_seconds: timings,
      rows,
      notes,
      results,
    },
    null,
    2,
  )}\n`,
);
