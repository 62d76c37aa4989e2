import { parseConfig } from '@skillgate/config';
import { createTempSkills, HOSTILE_PROCESS_UPSTREAM, waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { catalogSettings } from '../../src/compose/catalogSettings.js';
import { createCatalogSource } from '../../src/core/catalogSource.js';
import { connectClient, startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';

const HOSTILE = HOSTILE_PROCESS_UPSTREAM;
const CLASHES = 300;

const gateways: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
});

interface LogLine {
  msg?: string;
  problem?: { code?: string };
}

describe('an upstream whose tool list churns', () => {
  it('list churn with clashing tool names: each problem is logged once, rebuilds read no skill again, a client is served meanwhile', async () => {
    const lines: string[] = [];
    const gw = await startTestGateway(
      {
        upstreams: [
          {
            id: 'churn',
            command: [process.execPath, HOSTILE, 'churn', '--every', '120', '--clashes', String(CLASHES)],
            // 601 tools: over the default max_tools (256), which would drop most clashing pairs.
            max_tools: 1024,
          },
          { id: 'healthy', command: [process.execPath, HOSTILE, 'spy'] },
        ],
      },
      process.env,
      lines,
    );
    gateways.push(gw);
    const parsed = () => lines.map((line) => JSON.parse(line) as LogLine);
    const reloads = () => parsed().filter((line) => line.msg === 'catalog reloaded').length;
    const skillBefore = gw.gateway.catalogs.current.skills.get('text-stats')?.skill;
    expect(skillBefore).toBeDefined();
    const atStart = reloads();
    await waitFor(() => reloads() >= atStart + 5, {
      what: 'five rebuilds during the churn',
      timeoutMs: 30_000,
    });
    const c = await connectClient(gw.url);
    try {
      await c.client.callTool({ name: 'skill_healthy_get_info', arguments: {} });
      const echoed = await c.client.callTool({
        name: 'skill_healthy_call_echo',
        arguments: { text: 'fine' },
      });
      expect(textOf(echoed)).toBe('fine');
    } finally {
      await c.close();
    }
    // The same clashes in every rebuild: logged once each, not once per rebuild.
    const clashLines = parsed().filter((line) => line.problem?.code === 'TOOL_NAME_CLASH').length;
    expect(clashLines).toBeGreaterThanOrEqual(CLASHES);
    expect(clashLines).toBeLessThan(2 * CLASHES);
    // An upstream change rebuilds from the skills read before: the folder skills were not read (hashed) again.
    expect(gw.gateway.catalogs.current.skills.get('text-stats')?.skill).toBe(skillBefore);
  });

  it('a list changed every 20 ms is listed again and rebuilt into the catalog at most about once a second', async () => {
    const lines: string[] = [];
    const gw = await startTestGateway(
      {
        upstreams: [
          { id: 'churn', command: [process.execPath, HOSTILE, 'churn', '--every', '20', '--say-listed'] },
        ],
      },
      process.env,
      lines,
    );
    gateways.push(gw);
    const timesOf = (what: (line: LogLine) => boolean) =>
      lines
        .map((line) => JSON.parse(line) as LogLine & { time: number })
        .filter(what)
        .map((line) => line.time);
    const reloads = () => timesOf((line) => line.msg === 'catalog reloaded');
    const listings = () => timesOf((line) => line.msg === '[churn] listed');
    const atStart = reloads().length;
    await waitFor(() => reloads().length >= atStart + 4, {
      what: 'four rebuilds during the churn',
      timeoutMs: 30_000,
    });
    // Before: a relisting and a rebuild for every change (about 8 a second at 120 ms, far more at 20 ms).
    const gaps = (times: number[]) => times.slice(1).map((t, i) => t - (times[i] ?? t));
    const reloadGaps = gaps(reloads().slice(atStart));
    const listingGaps = gaps(listings().slice(1));
    expect(listingGaps.length).toBeGreaterThanOrEqual(3);
    // Paced to a second; the log lines' own times wander (a rebuild is logged after its notifications), so
    // the bound is well under a second and well over the ~100 ms of the unpaced code.
    expect(Math.min(...reloadGaps)).toBeGreaterThanOrEqual(600);
    expect(Math.min(...listingGaps)).toBeGreaterThanOrEqual(600);
  });

  it('a burst of reloads makes one running and one waiting rebuild, never a queue', async () => {
    const skills = await createTempSkills({ alpha: {} });
    try {
      let builds = 0;
      const settings = catalogSettings(
        parseConfig({ skills: { roots: [skills.root] } }, { baseDir: skills.work }),
      );
      const catalogs = await createCatalogSource(settings, { onBuilding: () => (builds += 1) });
      const burst = await Promise.all(Array.from({ length: 50 }, () => catalogs.reload({ skills: false })));
      expect(builds).toBeLessThanOrEqual(2);
      // Everyone gets a catalog built after their call: the last one.
      expect(new Set(burst.slice(1)).size).toBe(1);
      expect(burst.at(-1)).toBe(catalogs.current);
    } finally {
      await skills.close();
    }
  });
});
