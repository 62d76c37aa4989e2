import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createConnectFlows, FLOW_TTL_MS } from '../src/flows/connectFlows.js';
import { createKeyRing, decodeKey } from '../src/keys/keyRing.js';
import { createFileStore } from '../src/store/fileStore.js';
import { newKey } from './fixtures/keys.js';

describe('connect flows (file store)', () => {
  it('are handed out again while pending, used once, and expire after 10 minutes', async () => {
    let clock = Date.now();
    const now = () => clock;
    const store = createFileStore({ path: join(mkdtempSync(join(tmpdir(), 'sg-flows-')), 'c.json'), now });
    const flows = createConnectFlows(store, createKeyRing([decodeKey('k1', newKey())]), {
      now,
      withLogin: true,
    });
    const flow = await flows.start('token:alice', 'github');
    expect(flow.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(flow.login).toBeDefined();
    expect((await flows.start('token:alice', 'github')).id).toBe(flow.id);
    expect(await flows.take(flow)).toMatchObject({ principal: 'token:alice', provider: 'github' });
    expect(await flows.take(flow)).toBeUndefined();

    const next = await flows.start('token:alice', 'github');
    expect(next.id).not.toBe(flow.id);
    clock += FLOW_TTL_MS + 1;
    expect(await flows.peek(next.id)).toBeUndefined();
    expect((await flows.start('token:alice', 'github')).id).not.toBe(next.id);
  });

  it('do not open under another key (a flow sealed elsewhere), and ignore ids never handed out', async () => {
    const store = createFileStore({ path: join(mkdtempSync(join(tmpdir(), 'sg-flows-')), 'c.json') });
    const flow = await createConnectFlows(store, createKeyRing([decodeKey('k1', newKey())]), {
      withLogin: false,
    }).start('p', 'github');
    const other = createConnectFlows(store, createKeyRing([decodeKey('k1', newKey())]), { withLogin: false });
    expect(await other.peek(flow.id)).toBeUndefined();
    expect(await other.peek('../../etc/passwd')).toBeUndefined();
  });
});
