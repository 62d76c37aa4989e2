// What every phase of `pnpm bench` is given (phases.ts): one context per run, made by index.ts.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { generateSkills } from './support.js';
import type { Measured, Target } from './targets.js';

/** One row of the bench table, as printed and as written to bench-results/latest.json. */
export interface BenchRow {
  readonly phase: string;
  readonly group: string;
  readonly metric: string;
  readonly value: string;
  readonly reference: string;
  readonly ratio: string;
  readonly target: string;
  readonly verdict: '' | 'PASS' | 'MISS';
}

/**
 * How a phase reports one row. `target` is one of targets.ts (its verdict is `target.pass(measured)`; no
 * verdict without `measured`), 'reported' for a figure with no threshold, or '' for context.
 */
export type Row = (
  group: string,
  metric: string,
  value: string,
  reference: string,
  ratio: string,
  target?: Target | 'reported' | '',
  measured?: Measured,
) => void;

/** What a phase of `pnpm bench` is given. */
export interface BenchContext {
  /** `--quick`: fewer sizes, rounds and seconds (a smoke run; its ratios are noisier). */
  readonly quick: boolean;
  /** The checkout whose built packages the benchmark servers run (`pnpm bench` builds first). */
  readonly repo: string;
  /** `--before <checkout>`: another checkout's build, measured beside this one where a phase supports it. */
  readonly beforeRepo: string | undefined;
  /** The repository's example skills. */
  readonly examples: string;
  /** A root of `count` generated skills (support.ts `generateSkills`), made once per run, removed at its end. */
  skills(count: number, extraReferences?: number): Promise<string>;
  readonly row: Row;
  readonly note: (text: string) => void;
  /** Keeps a phase's raw figures under `results[key]` in bench-results/latest.json. */
  readonly result: (key: string, value: unknown) => void;
  readonly fmt: (n: number, digits?: number) => string;
  /** Progress on stderr (the table goes to stdout). */
  readonly log: (text: string) => void;
}

/** Numbers as the tables print them: thousands separated, a fixed number of decimals. */
export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** What a run collects from its phases, and the context that collects it. */
export interface BenchRecorder {
  readonly rows: BenchRow[];
  readonly notes: string[];
  readonly results: Record<string, unknown>;
  /** The context for one phase: its rows carry its name. */
  contextFor(phase: string): BenchContext;
  /** Removes the generated skill roots. */
  cleanUp(): Promise<void>;
}

/** Options of a run that every phase sees. */
export interface BenchRunOptions {
  readonly quick: boolean;
  readonly repo: string;
  readonly beforeRepo: string | undefined;
}

/** Makes the recorder of one run; generated skill roots are shared by the phases that ask for the same size. */
export function createRecorder(options: BenchRunOptions): BenchRecorder {
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  const results: Record<string, unknown> = {};
  const roots = new Map<string, Promise<string>>();
  const skills = (count: number, extraReferences = 0) => {
    const key = `${count}x${extraReferences}`;
    let root = roots.get(key);
    if (root === undefined) {
      root = generateSkills(count, extraReferences);
      roots.set(key, root);
    }
    return root;
  };
  return {
    rows,
    notes,
    results,
    contextFor: (phase) => ({
      ...options,
      examples: join(options.repo, 'examples/skills'),
      skills,
      fmt,
      note: (text) => notes.push(text),
      result: (key, value) => {
        results[key] = value;
      },
      log: (text) => process.stderr.write(`[bench ${phase}] ${text}\n`),
      row: (group, metric, value, reference, ratio, target = '', measured = undefined) => {
        const verdict =
          typeof target === 'string' || measured === undefined ? '' : target.pass(measured) ? 'PASS' : 'MISS';
        const text = typeof target === 'string' ? target : target.text;
        rows.push({ phase, group, metric, value, reference, ratio, target: text, verdict });
      },
    }),
    cleanUp: async () => {
      for (const root of roots.values()) await rm(await root, { recursive: true, force: true });
      roots.clear();
    },
  };
}
