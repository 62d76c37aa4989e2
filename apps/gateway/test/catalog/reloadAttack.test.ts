import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// Adding 1,000 skills under `watch` used to build the new catalog in one synchronous piece (1.5–1.9 s on
// the machine), during which no client got any answer. The healthy client here keeps listing its
// tools; at least one of its requests must be answered while the catalog is being built, i.e. after the
// gateway logged that the reload read its skills and before the new catalog is swapped in.
const SKILLS = 1000;

let dir: string;
let root: string;
let gw: TestGateway;
const logLines: string[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillgate-reload-attack-'));
  root = join(dir, 'root');
  await mkdir(join(root, 'first'), { recursive: true });
  await writeFile(
    join(root, 'first/SKILL.md'),
    '---\nname: first\ndescription: The first skill.\n---\nHi.\n',
  );
  gw = await startTestGateway(
    {
      skills: { roots: [root], watch: true, watch_debounce_ms: 200 },
      // The whole namespaced list, as before the search level: what is measured is serving it during a reload.
      tools: { max_listed: 100_000 },
      rate_limit: { requests_per_second: 0 },
    },
    process.env,
    logLines,
  );
});
afterAll(async () => {
  await gw.close();
  await rm(dir, { recursive: true, force: true });
});

/** Writes SKILLS skills in a staging folder, then moves them into the root one folder at a time. */
async function addSkills(): Promise<void> {
  const staging = join(dir, 'staging');
  const names = Array.from({ length: SKILLS }, (_, i) => `added-${i}`);
  await Promise.all(
    names.map(async (name, i) => {
      await mkdir(join(staging, name), { recursive: true });
      await writeFile(
        join(staging, name, 'SKILL.md'),
        `---\nname: ${name}\ndescription: Added skill ${i}, for task ${i}.\n---\nRead the notes.\n`,
      );
      // A few files each, so that building the catalog takes several slices even on a fast, idle machine.
      await mkdir(join(staging, name, 'references'));
      for (const note of ['a', 'b', 'c'])
        await writeFile(join(staging, name, 'references', `${note}.md`), `Note ${note} of ${name}.\n`);
    }),
  );
  for (const name of names) await rename(join(staging, name), join(root, name));
}

describe('adding 1,000 skills under watch', () => {
  it('keeps answering a healthy client while the new catalog is built', async () => {
    const healthy = await connectClient(gw.url);
    const catalogs = gw.gateway.catalogs;
    // A slow disk may let the watcher fire before every folder moved: several builds, each one counts.
    const builds = () => logLines.filter((line) => line.includes('building the catalog')).length;
    let swaps = 0;
    catalogs.onChange(() => {
      swaps += 1;
    });
    const complete = () => catalogs.current.skills.size === SKILLS + 1;
    let answeredDuringBuild = 0;
    const listing = (async () => {
      while (!complete()) {
        const [buildsAtSend, swapsAtSend] = [builds(), swaps];
        const building = buildsAtSend > swapsAtSend;
        await healthy.client.listTools();
        // Answered while a build was under way: sent during one and answered before its swap, or answered
        // after a build started and before it swapped.
        if ((building && swaps === swapsAtSend) || builds() > swaps) answeredDuringBuild += 1;
      }
    })();
    await addSkills();
    await waitFor(complete, { timeoutMs: 90_000, what: 'the reload with every skill' });
    await listing;
    expect(answeredDuringBuild).toBeGreaterThan(0);
    // And the healthy client sees the new skills.
    expect((await healthy.client.listTools()).tools.length).toBeGreaterThan(SKILLS);
    await healthy.close();
  }, 120_000);
});
