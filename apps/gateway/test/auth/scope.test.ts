import { waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway, toolNames } from '../helpers/testGateway.js';

const TOKEN_A = 'scope-token-a-0123456789';
const TOKEN_B = 'scope-token-b-0123456789';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway(
    {
      sessions: { scope: 'principal' },
      auth: {
        tokens: [
          { name: 'agent-a', token_env: 'SCOPE_TOKEN_A' },
          { name: 'agent-b', token_env: 'SCOPE_TOKEN_B' },
        ],
      },
    },
    { ...process.env, SCOPE_TOKEN_A: TOKEN_A, SCOPE_TOKEN_B: TOKEN_B },
  );
});
afterAll(async () => {
  await gw.close();
});

describe('sessions.scope: principal', () => {
  it("keeps a principal's unlocks across its sessions, and only its own", async () => {
    const first = await connectClient(gw.url, { token: TOKEN_A });
    await first.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
    await first.close();

    const reconnected = await connectClient(gw.url, { token: TOKEN_A });
    expect(await toolNames(reconnected.client)).toContain('skill_text-stats_run_stats_py');
    const run = await reconnected.client.callTool({
      name: 'skill_text-stats_run_stats_py',
      arguments: { stdin: 'a b' },
    });
    expect(run.isError).toBeFalsy();
    // Already unlocked for this principal: no new notification.
    await reconnected.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
    expect(reconnected.listChanged()).toBe(0);

    const other = await connectClient(gw.url, { token: TOKEN_B });
    expect(await toolNames(other.client)).not.toContain('skill_text-stats_run_stats_py');
    await reconnected.close();
    await other.close();
  });

  it("tells the principal's other open sessions, on their GET streams, that an unlock changed their list", async () => {
    const a = await connectClient(gw.url, { token: TOKEN_A });
    const b = await connectClient(gw.url, { token: TOKEN_A });
    const stranger = await connectClient(gw.url, { token: TOKEN_B });
    await b.client.callTool({ name: 'skill_log-triage_get_info', arguments: {} });
    expect(b.listChanged()).toBe(1);
    await waitFor(() => a.listChanged() === 1, { what: "list_changed on the other session's stream" });
    expect(await toolNames(a.client)).toContain('skill_log-triage_run_triage_sh');
    await stranger.client.listTools();
    expect([a.listChanged(), b.listChanged(), stranger.listChanged()]).toEqual([1, 1, 0]);
    await Promise.all([a.close(), b.close(), stranger.close()]);
  });
});
