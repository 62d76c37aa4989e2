import type { JobEnd } from '@skillgate/state';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import {
  type CounterName,
  type GaugeName,
  METRIC_SERIES,
  type MetricSeries,
  type SeriesSpec,
} from './metricSeries.js';

/** MCP methods counted by name in the operation histogram; any other is `other`, so clients cannot add series. */
const MCP_METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
  'logging/setLevel',
  'server/discover',
  'skills/list',
  'skills/get',
]);

/** Label values of one series. */
export type Labels = Readonly<Record<string, string>>;

// OpenTelemetry's advised buckets for mcp.server.operation.duration.
const OPERATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
const DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** Prometheus metrics of the gateway, rendered as text exposition format. */
export interface Metrics {
  /** Adds 1 (or n) to a counter series. */
  inc(name: CounterName, labels?: Labels, n?: number): void;
  /**
   * One counter series, found once: the function adds 1 (or n) to it without a label object or a walk per
   * call (for series a hot path counts on every request). The series appears at its first count, as with inc.
   */
  counter(name: CounterName, labels?: Labels): (n?: number) => void;
  /** Records a script duration in seconds. */
  observeScriptDuration(seconds: number, labels: Labels): void;
  /** Counts one upstream call by upstream and outcome, with its duration (docs/upstreams.md). */
  observeUpstreamCall(seconds: number, labels: { readonly upstream: string; readonly outcome: string }): void;
  /**
   * Records one MCP request's duration in `mcp_server_operation_duration_seconds` (OpenTelemetry's
   * mcp.server.operation.duration), by method (unknown methods as `other`) and error type.
   */
  observeOperation(seconds: number, method: string, errorType: string | undefined): void;
  /** Prometheus text; gauges are read at scrape time, the figures shared by replicas from a short cache. */
  render(gauges: Readonly<Record<GaugeName, number>>): Promise<string>;
}

const SPECS: ReadonlyMap<string, SeriesSpec> = new Map(METRIC_SERIES.map((s) => [s.name, s]));
/** The help text of a series, from the table. */
const help = (name: MetricSeries['name']): string => SPECS.get(name)?.help ?? '';

/** Figures of every replica sharing the state backend (with `memory`, this process's own). */
export interface SharedFigures {
  readonly sessionsOpen: number;
  readonly jobsRunning: number;
}

/** Options of createMetrics. */
export interface MetricsOptions {
  /** Async jobs running on this replica. */
  readonly localJobsRunning?: () => number;
  /** Reads the shared figures from the store; a failure leaves them out of that scrape. */
  readonly sharedFigures?: () => Promise<SharedFigures>;
  /** How long shared figures are reused, so frequent scrapes of many replicas cost the store little. */
  readonly sharedCacheMs?: number;
  /** Each upstream's state, read at scrape time for skillgate_upstream_up. */
  readonly upstreams?: () => readonly { readonly id: string; readonly state: string }[];
  /** Also export prom-client's process and Node.js metrics (default true). */
  readonly processMetrics?: boolean;
}

/** One counted series. */
interface Count {
  readonly name: CounterName;
  readonly labels: Labels;
  value: number;
}

/** A step of the walk to a count: a counter's root, a label name, or a label value. */
interface CountPath {
  count?: Count;
  readonly next: Map<string, CountPath>;
}

/** Label sets counted at most (they are small: kinds, outcomes, reasons). */
const MAX_LABELLED_CHILDREN = 4096;

// Labels are written in name order, whatever order a caller gave them in.
const sorted = (labels: Labels): Record<string, string> =>
  Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * Creates the gateway's metrics on prom-client, in a registry of its own (several gateways may share a
 * process in tests). A counter or histogram is created on first use, with the label names of that use, so
 * a series appears once it has a value. Label sets stay small (kinds, outcomes, reasons), never tool names.
 */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const durations: { histogram?: Histogram; operations?: Histogram } = {};
  const upstreamDurations = new Histogram({
    name: 'skillgate_upstream_call_duration_seconds',
    help: help('skillgate_upstream_call_duration_seconds'),
    labelNames: ['upstream'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  if (options.upstreams !== undefined) {
    const read = options.upstreams;
    new Gauge({
      name: 'skillgate_upstream_up',
      help: help('skillgate_upstream_up'),
      labelNames: ['upstream'],
      registers: [registry],
      collect() {
        // Upstream ids come from the config, so the series are as few as the configured upstreams.
        this.reset();
        for (const upstream of read())
          this.set({ upstream: upstream.id }, upstream.state === 'ready' ? 1 : 0);
      },
    });
  }

  const gauges = new Map<GaugeName, Gauge>();
  const gauge = (name: GaugeName): Gauge => {
    let found = gauges.get(name);
    if (found === undefined) {
      found = new Gauge({ name, help: help(name), registers: [registry] });
      gauges.set(name, found);
    }
    return found;
  };
  if (options.localJobsRunning !== undefined) {
    const read = options.localJobsRunning;
    new Gauge({
      name: 'skillgate_jobs_running',
      help: help('skillgate_jobs_running'),
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  }

  // The shared figures live in a registry of their own: one that cannot be read is left out, not reported 0.
  const shared = new Registry();
  const sharedSessions = new Gauge({
    name: 'skillgate_shared_sessions_open',
    help: help('skillgate_shared_sessions_open'),
    registers: [shared],
  });
  const sharedJobs = new Gauge({
    name: 'skillgate_shared_jobs_running',
    help: help('skillgate_shared_jobs_running'),
    registers: [shared],
  });
  const cacheMs = options.sharedCacheMs ?? 2000;
  let cached: { readonly at: number; readonly figures: Promise<SharedFigures | undefined> } | undefined;
  const sharedText = async (): Promise<string> => {
    const read = options.sharedFigures;
    if (read === undefined) return '';
    const now = Date.now();
    if (cached === undefined || now - cached.at >= cacheMs) {
      // Concurrent scrapes share one read; a failed read is not kept past this scrape's cache window.
      cached = { at: now, figures: read().catch(() => undefined) };
    }
    const figures = await cached.figures;
    if (figures === undefined) return '';
    sharedSessions.set(figures.sessionsOpen);
    sharedJobs.set(figures.jobsRunning);
    return shared.metrics();
  };

  // Counts are kept here and handed to prom-client when /metrics is scraped: prom-client hashes the labels
  // on every inc (a labelled child too), which the hot paths would pay per request. A count is found by
  // walking its label names and values through nested maps: the strings are the callers' literals, whose
  // hashes V8 keeps, so no key is built per inc.
  const counts: Count[] = [];
  const roots = new Map<CounterName, CountPath>();
  const step = (node: CountPath, key: string): CountPath | undefined => {
    let next = node.next.get(key);
    if (next === undefined) {
      // Label sets are small by design (kinds, outcomes, reasons); the bound only guards against a caller
      // that breaks that: past it, new label sets are dropped rather than grow memory.
      if (counts.length >= MAX_LABELLED_CHILDREN) return undefined;
      next = { next: new Map() };
      node.next.set(key, next);
    }
    return next;
  };
  /** The end of a series' walk (made on first use), or undefined past MAX_LABELLED_CHILDREN. */
  const seriesOf = (name: CounterName, labels: Labels | undefined): CountPath | undefined => {
    let node = roots.get(name);
    if (node === undefined) {
      node = { next: new Map() };
      roots.set(name, node);
      const labelNames = labels === undefined ? [] : Object.keys(labels).sort();
      new Counter({
        name,
        help: help(name),
        labelNames,
        registers: [registry],
        collect() {
          this.reset();
          for (const count of counts) if (count.name === name) this.inc(sorted(count.labels), count.value);
        },
      });
    }
    if (labels !== undefined) {
      for (const label in labels) {
        const byValue: CountPath | undefined = step(node, label);
        const next = byValue === undefined ? undefined : step(byValue, labels[label] as string);
        if (next === undefined) return undefined;
        node = next;
      }
    }
    return node;
  };
  const add = (node: CountPath, name: CounterName, labels: Labels | undefined, n: number): void => {
    if (node.count !== undefined) {
      node.count.value += n;
      return;
    }
    node.count = { name, labels: { ...labels }, value: n };
    counts.push(node.count);
  };
  const inc: Metrics['inc'] = (name, labels, n = 1) => {
    const node = seriesOf(name, labels);
    if (node !== undefined) add(node, name, labels, n);
  };
  const counter: Metrics['counter'] = (name, labels) => {
    const fixed = { ...labels };
    // Walked at the first count, not at binding: a series appears on /metrics once it has a value.
    let node: CountPath | undefined;
    return (n = 1) => {
      node ??= seriesOf(name, fixed);
      if (node !== undefined) add(node, name, fixed, n);
    };
  };
  return {
    inc,
    counter,
    observeScriptDuration(seconds, labels) {
      if (durations.histogram === undefined) {
        durations.histogram = new Histogram({
          name: 'skillgate_script_duration_seconds',
          help: help('skillgate_script_duration_seconds'),
          labelNames: Object.keys(labels).sort(),
          buckets: DURATION_BUCKETS,
          registers: [registry],
        });
      }
      durations.histogram.observe(sorted(labels), seconds);
    },
    observeUpstreamCall(seconds, labels) {
      inc('skillgate_upstream_calls_total', { upstream: labels.upstream, outcome: labels.outcome });
      upstreamDurations.observe({ upstream: labels.upstream }, seconds);
    },
    observeOperation(seconds, method, errorType) {
      if (durations.operations === undefined) {
        durations.operations = new Histogram({
          name: 'mcp_server_operation_duration_seconds',
          help: help('mcp_server_operation_duration_seconds'),
          labelNames: ['error_type', 'mcp_method_name'],
          buckets: OPERATION_BUCKETS,
          registers: [registry],
        });
      }
      durations.operations.observe(
        { error_type: errorType ?? '', mcp_method_name: MCP_METHODS.has(method) ? method : 'other' },
        seconds,
      );
    },
    async render(values) {
      for (const name of Object.keys(values) as GaugeName[]) gauge(name).set(values[name]);
      const [own, across] = await Promise.all([registry.metrics(), sharedText()]);
      return across === '' ? own : `${own}\n${across}`;
    },
  };
}

/** Counts an async job that ended on this replica like a finished run, with its duration (mode async). */
export function countJobEnd(metrics: Metrics, end: JobEnd): void {
  const status =
    end.state === 'exited'
      ? end.exitCode === 0
        ? 'ok'
        : end.signal !== null
          ? 'killed'
          : 'nonzero'
      : end.state;
  metrics.inc('skillgate_script_runs_total', { status });
  metrics.observeScriptDuration(end.durationMs / 1000, { mode: 'async' });
}
