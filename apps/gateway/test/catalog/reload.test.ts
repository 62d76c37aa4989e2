import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@skillgate/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  connectClient,
  EXAMPLES_ROOT,
  startTestGateway,
  type TestGateway,
  textOf,
  toolNames,
} from '../helpers/testGateway.js';

let root: string;
let gw: TestGateway | undefined;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'skillgate-reload-'));
  await cp(join(EXAMPLES_ROOT, 'text-stats'), join(root, 'text-stats'), { recursive: true });
  await cp(join(EXAMPLES_ROOT, 'log-triage'), join(root, 'log-triage'), { recursive: true });
  gw = await startTestGateway({ skills: { roots: [root], watch: true, watch_debounce_ms: 100 } });
});
afterEach(async () => {
  await gw?.close();
  await rm(root, { recursive: true, force: true });
});

const skillMd = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\nInstructions.\n`;

describe('hot reload (skills.watch)', () => {
  it('adds a new skill and notifies connected sessions once', async () => {
    const url = gw?.url as URL;
    const c = await connectClient(url);
    await toolNames(c.client);
    await cp(join(EXAMPLES_ROOT, 'csv-tools'), join(root, 'csv-tools'), { recursive: true });
    await waitFor(async () => (await toolNames(c.client)).includes('skill_csv-tools_get_info'));
    await waitFor(() => c.listChanged() >= 1);
    // A second change the session sees: its notification travels on the same stream after any duplicate of
    // the first, so once it is here a duplicate would have arrived (no clock decides).
    await cp(join(EXAMPLES_ROOT, 'release-notes'), join(root, 'release-notes'), { recursive: true });
    await waitFor(async () => (await toolNames(c.client)).includes('skill_release-notes_get_info'));
    await waitFor(() => c.listChanged() >= 2);
    expect(c.listChanged()).toBe(2);
    await c.close();
  });

  it('drops a removed skill from a session that had unlocked it', async () => {
    const c = await connectClient(gw?.url as URL);
    await c.client.callTool({ name: 'skill_log-triage_get_info', arguments: {} });
    expect(await toolNames(c.client)).toContain('skill_log-triage_run_triage_sh');
    await rm(join(root, 'log-triage'), { recursive: true });
    await waitFor(async () => !(await toolNames(c.client)).includes('skill_log-triage_get_info'));
    expect(await toolNames(c.client)).not.toContain('skill_log-triage_run_triage_sh');
    await expect(
      c.client.callTool({ name: 'skill_log-triage_run_triage_sh', arguments: {} }),
    ).rejects.toMatchObject({
      code: -32602,
    });
    await c.close();
  });

  it('keeps the last good version of a skill whose edit breaks it, and serves a fixed edit', async () => {
    const c = await connectClient(gw?.url as URL);
    await writeFile(
      join(root, 'text-stats', 'SKILL.md'),
      '---\nname: text-stats\ndescription: [unclosed\n---\nbody\n',
    );
    // The broken edit is reloaded (and its skill kept) once the catalog says so.
    await waitFor(
      () => gw?.gateway.catalogs.current.problems.some((p) => p.code === 'SKILL_KEPT_LAST_GOOD') ?? false,
      { what: 'the reload that keeps the last good version' },
    );
    expect(await toolNames(c.client)).toContain('skill_text-stats_get_info');
    const info = await c.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
    expect(textOf(info)).toContain('scripts/stats.py');
    expect(gw?.gateway.catalogs.current.problems.some((p) => p.code === 'SKILL_KEPT_LAST_GOOD')).toBe(true);

    await writeFile(join(root, 'text-stats', 'SKILL.md'), skillMd('text-stats', 'Counts words, now edited.'));
    await waitFor(async () => {
      const { tools } = await c.client.listTools();
      return (
        tools.find((t) => t.name === 'skill_text-stats_get_info')?.description === 'Counts words, now edited.'
      );
    });
    await c.close();
  });

  it('does not notify a session that cannot see the change', async () => {
    const c = await connectClient(gw?.url as URL);
    await toolNames(c.client);
    await writeFile(join(root, 'log-triage', 'references', 'extra.md'), '# more\n');
    await waitFor(
      () =>
        gw?.gateway.catalogs.current.skills.get('log-triage')?.toolNames.has('references/extra.md') ?? false,
    );
    // A change this session does see: had the first reload notified it, that notification would come first.
    await cp(join(EXAMPLES_ROOT, 'release-notes'), join(root, 'release-notes'), { recursive: true });
    await waitFor(() => c.listChanged() >= 1);
    expect(c.listChanged()).toBe(1);
    await c.close();
  });
});
