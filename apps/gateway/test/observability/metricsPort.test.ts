import { describe, expect, it } from 'vitest';
import { startTestGateway } from '../helpers/testGateway.js';

describe('metrics on their own port (observability.metrics_port)', () => {
  it('serves /metrics only on the metrics port; the MCP port answers 404 for it', async () => {
    const gw = await startTestGateway({ observability: { metrics_port: 0 } });
    try {
      expect(gw.metricsBase).toBeDefined();
      const own = await fetch(`${gw.metricsBase}/metrics`);
      expect(own.status).toBe(200);
      expect(await own.text()).toContain('# TYPE skillgate_skills_loaded gauge');
      expect((await fetch(`${gw.base}/metrics`)).status).toBe(404);
      // Nothing but /metrics on the metrics port: no MCP endpoint, no operator page, no probes.
      expect((await fetch(`${gw.metricsBase}/mcp`, { method: 'POST' })).status).toBe(404);
      expect((await fetch(`${gw.metricsBase}/`)).status).toBe(404);
      expect((await fetch(`${gw.base}/healthz`)).status).toBe(200);
    } finally {
      await gw.close();
    }
    await expect(fetch(`${gw.metricsBase}/metrics`)).rejects.toThrow();
  });

  it('keeps /metrics on the main port when no metrics port is set', async () => {
    const gw = await startTestGateway();
    try {
      expect(gw.metricsBase).toBeUndefined();
      expect((await fetch(`${gw.base}/metrics`)).status).toBe(200);
    } finally {
      await gw.close();
    }
  });
});
