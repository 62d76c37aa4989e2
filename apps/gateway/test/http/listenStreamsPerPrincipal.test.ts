import { appendFile, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_ROOT, startTestGateway, type TestGateway } from '../helpers/testGateway.js';
import { connectV2, type V2TestClient } from '../helpers/v2Client.js';

const env = { ALL_TOKEN: 'listen-all-token-1', CSV_TOKEN: 'listen-csv-token-1' };

let gw: TestGateway;
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'skillgate-listen-principal-'));
  await cp(join(EXAMPLES_ROOT, 'csv-tools'), join(root, 'csv-tools'), { recursive: true });
  gw = await startTestGateway(
    {
      skills: { roots: [root], prompts: true },
      auth: {
        tokens: [
          { name: 'all', token_env: 'ALL_TOKEN', skills: ['*'] },
          { name: 'csv', token_env: 'CSV_TOKEN', skills: ['csv-*'] },
        ],
      },
    },
    { ...process.env, ...env },
  );
});
afterAll(async () => {
  await gw.close();
  await rm(root, { recursive: true, force: true });
});

/** A modern client listening for every list change, counting each kind. */
interface Heard {
  tools: number;
  resources: number;
  prompts: number;
}

async function listener(token: string): Promise<{ client: V2TestClient; heard: Heard }> {
  const client = await connectV2(gw.url, { era: 'modern', token });
  const heard: Heard = { tools: 0, resources: 0, prompts: 0 };
  client.client.setNotificationHandler('notifications/resources/list_changed', async () => {
    heard.resources += 1;
  });
  client.client.setNotificationHandler('notifications/prompts/list_changed', async () => {
    heard.prompts += 1;
  });
  await client.client.listen({
    toolsListChanged: true,
    resourcesListChanged: true,
    promptsListChanged: true,
  });
  return {
    client,
    get heard() {
      return { ...heard, tools: client.listChanged() };
    },
  };
}

describe('listen streams hear only what their principal may see', () => {
  it("a 2026-07-28 stream is not told of a skill its token cannot use, and is told of its own skill's change", async () => {
    const all = await listener(env.ALL_TOKEN);
    const csv = await listener(env.CSV_TOKEN);
    try {
      // A skill only `all` may use appears: tools, skill entries and prompts change for `all` alone.
      await cp(join(EXAMPLES_ROOT, 'text-stats'), join(root, 'text-stats'), { recursive: true });
      await gw.gateway.catalogs.reload();
      await waitFor(() => all.heard.tools === 1 && all.heard.resources === 1 && all.heard.prompts === 1, {
        what: "the 'all' stream to hear the new skill",
      });
      // Then a file of csv-tools changes: its entry's digests change, for both principals. Streams deliver in
      // order, so once csv hears this one, it would have heard the first reload too.
      await appendFile(join(root, 'csv-tools', 'SKILL.md'), '\nOne more line.\n');
      await gw.gateway.catalogs.reload();
      await waitFor(() => csv.heard.resources >= 1 && all.heard.resources === 2, {
        what: 'both streams to hear the csv-tools change',
      });
      expect(csv.heard).toEqual({ tools: 0, resources: 1, prompts: 0 });
    } finally {
      await all.client.close();
      await csv.client.close();
    }
  });
});
