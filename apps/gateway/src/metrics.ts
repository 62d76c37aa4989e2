/** Label values of one series. */
export type Labels = Readonly<Record<string, string>>;

const DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

interface Histogram {
  readonly counts: number[];
  sum: number;
  count: number;
}

/** Prometheus metrics of the gateway, rendered as text exposition format. */
export interface Metrics {
  /** Adds 1 (or n) to a counter series. */
  inc(name: CounterName, labels?: Labels, n?: number): void;
  /** Records a script duration in seconds. */
  observeScriptDuration(seconds: number, labels: Labels): void;
  /** Prometheus text; gauges are read at scrape time. */
  render(gauges: Readonly<Record<GaugeName, number>>): string;
}

/** Every counter the gateway exports. */
export type CounterName =
  | 'skillgate_tool_calls_total'
  | 'skillgate_unlocks_total'
  | 'skillgate_script_runs_total'
  | 'skillgate_rejected_requests_total'
  | 'skillgate_rejected_connections_total'
  | 'skillgate_sessions_created_total'
  | 'skillgate_catalog_reloads_total';

/** Every gauge the gateway exports. */
export type GaugeName =
  | 'skillgate_sessions_open'
  | 'skillgate_scripts_running'
  | 'skillgate_scripts_queued'
  | 'skillgate_skills_loaded';

const HELP: Readonly<Record<CounterName | GaugeName | 'skillgate_script_duration_seconds', string>> = {
  skillgate_tool_calls_total: 'Tool calls by kind and outcome.',
  skillgate_unlocks_total: 'First unlocks of a skill in a session.',
  skillgate_script_runs_total: 'Finished script runs by status.',
  skillgate_rejected_requests_total: 'HTTP requests rejected by reason.',
  skillgate_rejected_connections_total:
    'TCP connections closed by reason: on accept (connection caps), or for output left unread.',
  skillgate_sessions_created_total: 'MCP sessions created.',
  skillgate_catalog_reloads_total: 'Catalog reloads by outcome.',
  skillgate_sessions_open: 'MCP sessions open now.',
  skillgate_scripts_running: 'Scripts running now.',
  skillgate_scripts_queued: 'Script runs waiting for a slot.',
  skillgate_skills_loaded: 'Skills in the current catalog.',
  skillgate_script_duration_seconds: 'Script run duration.',
};

const escapeLabel = (value: string): string =>
  value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

const seriesKey = (labels: Labels | undefined): string => {
  if (labels === undefined) return '';
  const parts = Object.keys(labels)
    .sort()
    .map((k) => `${k}="${escapeLabel(labels[k] ?? '')}"`);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
};

/** Creates an empty metrics registry. Label sets stay small (kinds, outcomes, reasons), never tool names. */
export function createMetrics(): Metrics {
  const counters = new Map<CounterName, Map<string, number>>();
  const durations = new Map<string, Histogram>();
  return {
    inc(name, labels, n = 1) {
      let series = counters.get(name);
      if (series === undefined) {
        series = new Map();
        counters.set(name, series);
      }
      const key = seriesKey(labels);
      series.set(key, (series.get(key) ?? 0) + n);
    },
    observeScriptDuration(seconds, labels) {
      const key = seriesKey(labels);
      let h = durations.get(key);
      if (h === undefined) {
        h = { counts: DURATION_BUCKETS.map(() => 0), sum: 0, count: 0 };
        durations.set(key, h);
      }
      DURATION_BUCKETS.forEach((bound, i) => {
        if (seconds <= bound && h !== undefined) h.counts[i] = (h.counts[i] ?? 0) + 1;
      });
      h.sum += seconds;
      h.count += 1;
    },
    render(gauges) {
      const lines: string[] = [];
      for (const [name, series] of counters) {
        lines.push(`# HELP ${name} ${HELP[name]}`, `# TYPE ${name} counter`);
        for (const [key, value] of series) lines.push(`${name}${key} ${value}`);
      }
      for (const name of Object.keys(gauges) as GaugeName[]) {
        lines.push(`# HELP ${name} ${HELP[name]}`, `# TYPE ${name} gauge`, `${name} ${gauges[name]}`);
      }
      const hname = 'skillgate_script_duration_seconds';
      lines.push(`# HELP ${hname} ${HELP[hname]}`, `# TYPE ${hname} histogram`);
      for (const [key, h] of durations) {
        const inner = key === '' ? '' : `${key.slice(1, -1)},`;
        DURATION_BUCKETS.forEach((bound, i) => {
          lines.push(`${hname}_bucket{${inner}le="${bound}"} ${h.counts[i] ?? 0}`);
        });
        lines.push(
          `${hname}_bucket{${inner}le="+Inf"} ${h.count}`,
          `${hname}_sum${key} ${h.sum}`,
          `${hname}_count${key} ${h.count}`,
        );
      }
      return `${lines.join('\n')}\n`;
    },
  };
}
