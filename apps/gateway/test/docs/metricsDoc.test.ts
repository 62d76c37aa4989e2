import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_SERIES } from '../../src/observability/metricSeries.js';
import { withMetricsTable } from '../../src/observability/metricsReference.js';
import { connectClient, REPO_ROOT, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

const DOC = join(REPO_ROOT, 'docs/observability.md');

describe('docs/observability.md lists every metric the code exports', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(async () => {
    await gw.close();
  });

  it('the metrics table is what the series table generates (run `pnpm docs:metrics` after changing one)', async () => {
    const doc = await readFile(DOC, 'utf8');
    expect(doc).toBe(withMetricsTable(doc));
  });

  it('every skillgate series a live gateway exposes is in the table, with its type and only its labels', async () => {
    const client = await connectClient(gw.url);
    await client.client.listTools();
    await client.client
      .callTool({ name: 'skillgate-info-hello-world', arguments: {} })
      .catch(() => undefined);
    await client.close();
    const text = await (await fetch(`${gw.base}/metrics`)).text();
    const specs = new Map<string, (typeof METRIC_SERIES)[number]>(METRIC_SERIES.map((s) => [s.name, s]));
    const types = [...text.matchAll(/^# TYPE (skillgate_\w+) (\w+)$/gm)];
    expect(types.length).toBeGreaterThan(8);
    for (const [, name = '', type] of types) expect(specs.get(name)?.type, name).toBe(type);
    for (const [, name = '', labels = ''] of text.matchAll(
      /^(skillgate_\w+?)(?:_bucket|_sum|_count)?\{([^}]*)\}/gm,
    )) {
      const base = specs.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
      const allowed = new Set<string>([...(specs.get(base)?.labels ?? []), 'le']);
      for (const [, label = ''] of labels.matchAll(/(\w+)="/g))
        expect(allowed.has(label), `${name} ${label}`).toBe(true);
    }
  });
});
