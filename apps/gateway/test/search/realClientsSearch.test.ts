import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { writeRegistrySkills } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_ROOT, REPO_ROOT, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// LangChain's MCP adapters and the AI SDK, as a new user installs them from npm, against the real gateway with
// the default config and a catalog past tools.max_listed: the 491 servers of the ETOM catalogue as skills plus
// the bundled examples. Each loads its tools once (its first list must be small), then searches, loads the
// skill it found and runs its script and reads its reference.
const SCRIPTS = join(REPO_ROOT, 'apps/gateway/test/realClients');
const CLIENTS: ReadonlyArray<[label: string, script: string]> = [
  ['LangChain @langchain/mcp-adapters', 'langchainSearch.mjs'],
  ['the AI SDK @ai-sdk/mcp', 'aiSdkSearch.mjs'],
];

let work: string;
let gw: TestGateway;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillgate-search-clients-'));
  await writeRegistrySkills({ root: join(work, 'registry') });
  gw = await startTestGateway({ skills: { roots: [join(work, 'registry'), EXAMPLES_ROOT] } });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('real third-party clients on a 499-skill catalog (search)', () => {
  it.each(CLIENTS)(
    '%s: a bounded first list, then search -> load_skill -> run and read',
    async (_label, script) => {
      const args = [
        gw.url.href,
        'count the words and lines of a text',
        'text-stats',
        'scripts/stats.py',
        'references/usage.md',
      ];
      const { stdout } = await promisify(execFile)(process.execPath, [join(SCRIPTS, script), ...args], {
        cwd: SCRIPTS,
        timeout: 60_000,
      });
      const out = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
      const listed = out.listed as string[];
      expect(listed.length).toBeLessThan(128);
      expect(listed).toEqual(expect.arrayContaining(['search_skills', 'load_skill', 'run_skill_script']));
      expect(listed.some((name) => name.endsWith('_get_info'))).toBe(false);
      expect(out.search).toContain('text-stats');
      expect(out.load).toContain('scripts/stats.py');
      // stats.py counted the three words it was given (however deep the client nests its result's JSON).
      expect(String(out.run).replaceAll('\\', '')).toContain('"words": 3');
      expect(out.read).toContain('text-stats: usage and edge cases');
    },
  );
});
