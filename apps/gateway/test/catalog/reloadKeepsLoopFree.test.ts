import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// 1,000 skill folders moved into a watched root at once: node's recursive fs.watch (the watcher before
// @parcel/watcher) walked them synchronously and read the whole root again on every event, holding the event
// loop 1.3–3.2 s in one piece, while every client of every era waited (docs/limits.md, "Reloads"). What is
// measured is the gateway's own event-loop delay histogram (monitorEventLoopDelay behind /metrics'
// nodejs_eventloop_lag_max_seconds, reset by each scrape), not a client's latency: the longest the loop was
// held between the scrape before the move and the one after the new catalog serves.
const SKILLS = 1000;
const exec = promisify(execFile);
// Far above a slice of the catalog build (about 20 ms) or a busy machine's scheduling hiccup, far below the
// stall this guards (over a second).
const MAX_HELD_SECONDS = 0.5;

let dir: string;
let root: string;
let staging: string;
let gw: TestGateway;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillgate-reload-loop-'));
  root = join(dir, 'root');
  staging = join(dir, 'staging');
  await mkdir(join(root, 'first'), { recursive: true });
  await writeFile(
    join(root, 'first/SKILL.md'),
    '---\nname: first\ndescription: The first skill.\n---\nHi.\n',
  );
  for (let i = 0; i < SKILLS; i++) {
    const skill = join(staging, `added-${i}`);
    await mkdir(join(skill, 'references'), { recursive: true });
    await writeFile(
      join(skill, 'SKILL.md'),
      `---\nname: added-${i}\ndescription: Added skill ${i}, for task ${i}.\n---\nRead the notes.\n`,
    );
    for (const note of ['a', 'b', 'c'])
      await writeFile(join(skill, 'references', `${note}.md`), `Note ${note} of skill ${i}.\n`);
  }
  gw = await startTestGateway({
    skills: { roots: [root], watch: true, watch_debounce_ms: 200 },
    // The whole namespaced list: every list of the new catalog is rendered in full.
    tools: { max_listed: 100_000 },
    rate_limit: { requests_per_second: 0 },
  });
});
afterAll(async () => {
  await gw.close();
  await rm(dir, { recursive: true, force: true });
});

/** The longest event-loop delay since the previous scrape, in seconds. */
async function loopHeldSeconds(): Promise<number> {
  const text = await (await fetch(`${gw.base}/metrics`)).text();
  const value = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1];
  if (value === undefined) throw new Error('no nodejs_eventloop_lag_max_seconds on /metrics');
  return Number(value);
}

describe('1,000 skills moved into a watched root', () => {
  it('never hold the event loop while they are watched, read and built; another client is served from the old catalog meanwhile', async () => {
    const healthy = await connectClient(gw.url);
    const catalogs = gw.gateway.catalogs;
    const complete = () => catalogs.current.skills.size === SKILLS + 1;
    let answeredFromOld = 0;
    const listing = (async () => {
      while (!complete()) {
        const { tools } = await healthy.client.listTools();
        if (tools.length < SKILLS) answeredFromOld += 1;
      }
    })();
    await loopHeldSeconds();
    // By another process, at once, as `mv` or a checkout does it: the watcher gets the events in a burst.
    await exec('sh', ['-c', 'mv "$0"/* "$1"/', staging, root]);
    await waitFor(complete, { timeoutMs: 90_000, what: 'the reload with every skill' });
    await listing;
    const held = await loopHeldSeconds();
    expect(held).toBeLessThan(MAX_HELD_SECONDS);
    expect(answeredFromOld).toBeGreaterThan(0);
    expect((await healthy.client.listTools()).tools.length).toBeGreaterThan(SKILLS);
    await healthy.close();
  }, 120_000);
});
