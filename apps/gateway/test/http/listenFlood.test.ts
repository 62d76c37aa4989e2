import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernPost } from '../helpers/rawHttp.js';
import { startTestGateway, type TestGateway } from '../helpers/testGateway.js';
import { connectV2, type V2TestClient } from '../helpers/v2Client.js';

// One principal opening subscriptions/listen streams as fast as it can used to take the SDK's one
// process-wide cap (1,024) for itself, after which every other tenant got HTTP 200 with -32603. Now it
// gets 429 past its own cap (16 by default), and another tenant still listens and hears a reload.
const TOKEN_A = 'listen-a-0123456789abcdef';
const TOKEN_B = 'listen-b-0123456789abcdef';
const PER_PRINCIPAL = 16;

let dir: string;
let gw: TestGateway;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillgate-listen-'));
  await mkdir(join(dir, 'one'), { recursive: true });
  await writeFile(join(dir, 'one/SKILL.md'), '---\nname: one\ndescription: The first skill.\n---\nHi.\n');
  gw = await startTestGateway(
    {
      skills: { roots: [dir] },
      auth: {
        tokens: [
          { name: 'flooder', token_env: 'LISTEN_TOKEN_A' },
          { name: 'tenant', token_env: 'LISTEN_TOKEN_B' },
        ],
      },
      rate_limit: { requests_per_second: 0 },
    },
    { ...process.env, LISTEN_TOKEN_A: TOKEN_A, LISTEN_TOKEN_B: TOKEN_B },
  );
});
afterAll(async () => {
  await gw.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a flood of subscriptions/listen streams from one principal', () => {
  let flooder: V2TestClient | undefined;
  let tenant: V2TestClient | undefined;
  afterAll(async () => {
    await flooder?.close();
    await tenant?.close();
  });

  it('is capped per principal with 429 and Retry-After; another tenant still listens and hears a reload', async () => {
    const a = await connectV2(gw.url, { era: 'modern', token: TOKEN_A });
    flooder = a;
    const streams = [];
    for (let i = 0; i < PER_PRINCIPAL; i++) streams.push(await a.client.listen({ toolsListChanged: true }));
    await expect(a.client.listen({ toolsListChanged: true })).rejects.toThrow();
    expect(a.statuses).toContain(429);

    const raw = await modernPost(gw.url, {
      method: 'subscriptions/listen',
      params: { notifications: { toolsListChanged: true } },
      token: TOKEN_A,
    });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe('30');
    expect(await raw.json()).toMatchObject({ error: { data: { reason: 'RATE_LIMITED' } } });

    const b = await connectV2(gw.url, { era: 'modern', token: TOKEN_B });
    tenant = b;
    const heard = await b.client.listen({ toolsListChanged: true });
    await mkdir(join(dir, 'two'), { recursive: true });
    await writeFile(join(dir, 'two/SKILL.md'), '---\nname: two\ndescription: The second skill.\n---\nHi.\n');
    await gw.gateway.catalogs.reload();
    await waitFor(() => b.listChanged() === 1, { what: "the tenant's list_changed" });
    await heard.close();

    // A closed stream frees its place.
    await streams[0]?.close();
    await waitFor(
      async () =>
        a.client.listen({ toolsListChanged: true }).then(
          (s) => {
            streams.push(s);
            return true;
          },
          () => false,
        ),
      { what: 'a place freed by a closed stream' },
    );
    for (const stream of streams) await stream.close();
  });
});
