import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempSkills, freePort, type TempSkills } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectBrowser } from '../helpers/connectBrowser.js';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// docs/credentials.md, scripts.credentials: a skill's script gets the caller's own connected secret as an environment
// variable, in the bwrap sandbox too; the value is in no process's argv and no log line; a caller without the
// connection is asked to connect and the script does not start.

const SKILL = 'gh-report';
// Prints whether the variable is set and its sha256 (never the value); `$1`, when given, is a file it creates
// (how the test knows it started); it then lingers so the process table can be read while it runs.
const SCRIPT = `#!/bin/sh
if [ -n "$1" ]; then : > "$1"; fi
if [ -n "\${GITHUB_TOKEN+x}" ]; then
  printf 'set %s\\n' "$(printf %s "$GITHUB_TOKEN" | sha256sum | cut -d' ' -f1)"
else
  echo unset
fi
sleep 0.5
`;
const PEOPLE = ['ann', 'ben'].map((name) => ({
  name,
  token: `${name}-${randomBytes(12).toString('hex')}`,
  value: `ghp_${name}_${randomBytes(16).toString('hex')}`,
}));
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let skills: TempSkills;
const gateways: Record<string, { gw: TestGateway; lines: string[] }> = {};

const startGateway = async (sandbox: 'off' | 'bwrap') => {
  const port = await freePort();
  const lines: string[] = [];
  const gw = await startTestGateway(
    {
      server: { public_url: `http://127.0.0.1:${port}` },
      auth: { tokens: PEOPLE.map((p) => ({ name: p.name, token_env: `T_${p.name.toUpperCase()}` })) },
      skills: { roots: [skills.root], disclosure: 'eager', modern_disclosure: 'eager' },
      scripts: {
        sandbox,
        default_timeout_seconds: 10,
        credentials: [{ skills: ['gh-*'], env: 'GITHUB_TOKEN', provider: 'github' }],
      },
      credentials: {
        store: 'file',
        file: join(skills.work, `credentials-${sandbox}.json`),
        keys: [{ id: 'k1', env: 'SG_KEY' }],
        providers: [{ id: 'github', secret: { label: 'GitHub token' } }],
      },
      logging: { level: 'debug' },
    },
    {
      ...process.env,
      ...Object.fromEntries(PEOPLE.map((p) => [`T_${p.name.toUpperCase()}`, p.token])),
      SG_KEY: randomBytes(32).toString('base64'),
    },
    lines,
    { port },
  );
  gateways[sandbox] = { gw, lines };
};

beforeAll(async () => {
  skills = await createTempSkills({
    [SKILL]: { description: 'Reports on GitHub as the caller.', files: { 'scripts/report.sh': SCRIPT } },
  });
  await Promise.all([startGateway('off'), startGateway('bwrap')]);
});
afterAll(async () => {
  await Promise.all(Object.values(gateways).map((g) => g.gw.close()));
  await skills?.close();
});

/** How many processes have `text` in their argv now. */
const inArgv = (text: string): number => {
  let found = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes(text)) found++;
    } catch {
      // Exited while scanning.
    }
  }
  return found;
};

const TOOL = `skill_${SKILL}_run_report_sh`;

describe.each(['off', 'bwrap'] as const)('scripts.credentials with scripts.sandbox: %s', (sandbox) => {
  it('asks a caller without the connection to connect and does not start the script', async () => {
    const { gw } = gateways[sandbox] ?? {};
    if (gw === undefined) throw new Error('no gateway');
    const marker = join(skills.work, `started-${sandbox}`);
    const ann = await connectClient(gw.url, { token: PEOPLE[0]?.token });
    const asked = await ann.client.callTool({ name: TOOL, arguments: { args: [marker] } });
    await ann.close();
    expect(asked.isError).toBe(true);
    expect(asked.structuredContent).toMatchObject({ reason: 'CONNECT_REQUIRED', provider: 'github' });
    expect(existsSync(marker)).toBe(false);
  });

  it("runs with each caller's own value, never in any argv or log line", async () => {
    const { gw, lines } = gateways[sandbox] ?? {};
    if (gw === undefined || lines === undefined) throw new Error('no gateway');
    for (const person of PEOPLE) {
      const c = await connectClient(gw.url, { token: person.token });
      const asked = await c.client.callTool({ name: TOOL, arguments: { args: [] } });
      const link = String((asked.structuredContent as { url?: string } | undefined)?.url);
      const done = await new ConnectBrowser(gw.base).connectSecretWithToken(link, person.token, person.value);
      expect(done.status).toBe(200);

      // Every /proc/<pid>/cmdline, read again and again for as long as the run goes on.
      let running = true;
      let scans = 0;
      let seen = 0;
      const scanning = (async () => {
        while (running) {
          seen += inArgv(person.value);
          scans++;
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      const result = await c.client.callTool({ name: TOOL, arguments: { args: [] } });
      running = false;
      await scanning;
      await c.close();
      expect(scans).toBeGreaterThan(5);
      expect(seen).toBe(0);
      expect(result.isError).not.toBe(true);
      expect((result.structuredContent as { stdout?: string }).stdout).toBe(`set ${sha256(person.value)}\n`);
    }
    const log = lines.join('\n');
    expect(log.length).toBeGreaterThan(0);
    for (const person of PEOPLE) expect(log).not.toContain(person.value);
  });
});
