import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  type HttpTestUpstream as HostileUpstreamProcess,
  startHostileUpstream,
  TEST_UPSTREAM,
  waitFor,
} from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliArgs } from '../helpers/cliCommand.js';
import {
  connectClient,
  EXAMPLES_ROOT,
  REPO_ROOT,
  startTestGateway,
  type TestGateway,
  textOf,
} from '../helpers/testGateway.js';

// An upstream lists 1,000 tools with large schemas and descriptions (30 MB of get_info in the attack, a
// 2025 tools/list that failed outright, 744 MB peak), or a few tools with one huge schema each.
const run = promisify(execFile);
const LISTED = 1012; // 1,000 flood tools and the hostile server's 12 own
let gw: TestGateway;
let flood: HostileUpstreamProcess;
let fat: HostileUpstreamProcess;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'skillgate-flood-'));
  flood = await startHostileUpstream([
    '--name',
    'flood',
    '--flood',
    '1000',
    '--schema-bytes',
    '8000',
    '--description-bytes',
    '20000',
    '--page-size',
    '100',
  ]);
  fat = await startHostileUpstream(['--name', 'fat', '--flood', '3', '--schema-bytes', '30000']);
  gw = await startTestGateway({
    // A cap above the flood's 256 kept tools: this suite is about max_tools; a skill past tools.max_listed
    // unlocks nothing at all (test/search/oversizedSkillCap.test.ts).
    tools: { max_listed: 2000 },
    upstreams: [
      { id: 'flood', url: flood.url },
      { id: 'fat', url: fat.url, max_tool_schema_bytes: 20_000 },
      { id: 'fine', command: [process.execPath, TEST_UPSTREAM, '--stdio'] },
    ],
  });
  await waitFor(() => gw.gateway.upstreams.snapshots().every((s) => s.state === 'ready'), {
    what: 'every upstream ready',
    timeoutMs: 30_000,
  });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await flood?.stop();
  await fat?.stop();
  await rm(root, { recursive: true, force: true });
});

describe('tool and schema floods from an upstream', () => {
  it('keeps max_tools tools and schemas within max_tool_schema_bytes, reports the rest; others are served', async () => {
    const [floodSnapshot, fatSnapshot] = gw.gateway.upstreams.snapshots();
    expect(floodSnapshot?.tools.length).toBe(256);
    expect(floodSnapshot?.dropped?.length).toBe(LISTED - 256);
    expect(floodSnapshot?.dropped?.[0]?.reason).toBe('over max_tools 256');
    expect(floodSnapshot?.tools.every((t) => Buffer.byteLength(t.description ?? '') <= 4096)).toBe(true);
    expect(fatSnapshot?.tools.map((t) => t.name)).not.toContain('flood_0000');
    expect(fatSnapshot?.dropped?.map((d) => d.name)).toEqual(['flood_0000', 'flood_0001', 'flood_0002']);
    expect(gw.gateway.catalogs.current.problems).toContainEqual(
      expect.objectContaining({ code: 'UPSTREAM_TOOLS_DROPPED', file: 'upstream:flood' }),
    );
    const ready = (await (await fetch(`${gw.base}/readyz`)).json()) as {
      details?: { upstreams?: unknown[] };
      upstreams?: unknown[];
    };
    expect(JSON.stringify(ready)).toContain(`"dropped_tools":${LISTED - 256}`);

    const attacker = await connectClient(gw.url, { name: 'attacker' });
    const other = await connectClient(gw.url, { name: 'bystander' });
    try {
      const info = textOf(await attacker.client.callTool({ name: 'skill_flood_get_info', arguments: {} }));
      // 256 tools of 8 KB schemas and 1 KB descriptions: about 2.4 MB, not the 9 MB of all 1,007.
      expect(info.length).toBeLessThan(3_000_000);
      const { tools } = await attacker.client.listTools();
      expect(tools.filter((t) => t.name.startsWith('skill_flood_call_')).length).toBe(256);
      const echoed = await other.client.callTool({ name: 'skill_fine_get_info', arguments: {} });
      expect(echoed.isError).not.toBe(true);
    } finally {
      await attacker.close();
      await other.close();
    }
  });

  it('skillgate upstreams and skillgate validate report the dropped tools', async () => {
    const config = join(root, 'skillgate.yaml');
    await writeFile(
      config,
      `skills:\n  roots: [${JSON.stringify(EXAMPLES_ROOT)}]\nupstreams:\n  - id: fat\n    url: ${fat.url}\n    max_tool_schema_bytes: 20000\n`,
    );
    const cli = (...args: string[]) =>
      run(process.execPath, [...cliArgs(), ...args], {
        cwd: REPO_ROOT,
        env: { ...process.env, SKILLGATE_CONFIG: '' },
      });
    const upstreams = await cli('upstreams', '--config', config);
    expect(upstreams.stdout).toMatch(
      /dropped: flood_0000 \(schemas of \d+ bytes, over max_tool_schema_bytes 20000\)/,
    );
    const validate = await cli('validate', '--config', config);
    expect(validate.stdout).toMatch(
      /warning +UPSTREAM_TOOLS_DROPPED +upstream:fat: upstream "fat" lists 3 tools/,
    );
  });
});
