import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectClient,
  startTestGateway,
  type TestClient,
  type TestGateway,
  textOf,
  toolNames,
} from '../helpers/testGateway.js';

// 50 concurrent sessions across 3 principals with different skill sets: no cross-talk of any kind.
const PRINCIPALS = [
  {
    name: 'agent-a',
    env: 'ISO_TOKEN_A',
    token: 'iso-a-0123456789abcdef',
    skills: ['text-stats', 'gateway-probe'],
  },
  {
    name: 'agent-b',
    env: 'ISO_TOKEN_B',
    token: 'iso-b-0123456789abcdef',
    skills: ['log-triage', 'csv-tools', 'gateway-probe'],
  },
  { name: 'agent-c', env: 'ISO_TOKEN_C', token: 'iso-c-0123456789abcdef', skills: ['*'] },
] as const;
const SESSIONS = 50;

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway(
    {
      skills: { async_enabled: true },
      auth: { tokens: PRINCIPALS.map((p) => ({ name: p.name, token_env: p.env, skills: [...p.skills] })) },
      rate_limit: { requests_per_second: 0 },
      // With auth, /metrics on the MCP port wants an admin token: scraped on its own port here.
      observability: { metrics_port: 0 },
      scripts: {
        max_concurrent: 8,
        max_concurrent_per_principal: 8,
        max_queue: 200,
        queue_timeout_seconds: 60,
      },
    },
    { ...process.env, ...Object.fromEntries(PRINCIPALS.map((p) => [p.env, p.token])) },
  );
}, 60_000);
afterAll(async () => {
  await gw.close();
});

interface Agent {
  readonly index: number;
  readonly principal: (typeof PRINCIPALS)[number];
  readonly client: TestClient;
  /** The skills this session unlocks: its own pick among what its principal may use. */
  readonly unlock: readonly string[];
}

describe('50 concurrent sessions across 3 principals', () => {
  it('keeps unlocks, outputs, notifications, jobs and skill sets apart', async () => {
    const agents: Agent[] = await Promise.all(
      Array.from({ length: SESSIONS }, async (_, index) => {
        const principal = PRINCIPALS[index % PRINCIPALS.length] ?? PRINCIPALS[0];
        const client = await connectClient(gw.url, { token: principal.token, name: `agent-${index}` });
        const own =
          principal.skills[0] === '*'
            ? ['text-stats', 'log-triage', 'csv-tools', 'gateway-probe']
            : [...principal.skills];
        // Every session unlocks gateway-probe (to run echo-args) plus one other skill that depends on its index.
        const other = own.filter((s) => s !== 'gateway-probe')[index % (own.length - 1)] ?? 'text-stats';
        return { index, principal, client, unlock: ['gateway-probe', other] };
      }),
    );

    const jobs = await Promise.all(
      agents.map(async (agent) => {
        const { client } = agent.client;
        const visibleAtStart = await toolNames(client);
        for (const name of visibleAtStart) expect(name.endsWith('_get_info')).toBe(true);
        if (agent.principal.skills[0] !== '*') {
          expect(visibleAtStart.sort()).toEqual(
            agent.principal.skills.map((s) => `skill_${s}_get_info`).sort(),
          );
        }
        for (const skill of agent.unlock)
          await client.callTool({ name: `skill_${skill}_get_info`, arguments: {} });
        await client.callTool({ name: `skill_${agent.unlock[1]}_get_info`, arguments: {} });
        const marker = `session-${agent.index}-${agent.principal.name} ✓ "quoted" $(x)`;
        const run = await client.callTool({
          name: 'skill_gateway-probe_run_echo-args_py',
          arguments: { args: [marker] },
        });
        expect(JSON.parse((run.structuredContent as { stdout: string }).stdout)).toEqual([marker]);
        const started = await client.callTool({
          name: 'skill_gateway-probe_run_async_echo-args_py',
          arguments: { args: [`job-${agent.index}`] },
        });
        return (started.structuredContent as { job_id: string }).job_id;
      }),
    );

    for (const agent of agents) {
      const { client } = agent.client;
      // Exactly one notification per first unlock, none for the repeated get_info.
      expect(agent.client.listChanged()).toBe(agent.unlock.length);
      const names = await toolNames(client);
      const unlockedSkills = new Set(
        names
          .filter(
            (n) =>
              !n.endsWith('_get_info') &&
              n.startsWith('skill_') &&
              !n.startsWith('skill_get_') &&
              !n.startsWith('skill_cancel_'),
          )
          .map((n) => n.split('_')[1]),
      );
      expect([...unlockedSkills].sort()).toEqual([...agent.unlock].sort());
      // Its own job is found; every other session's job is not.
      const own = await client.callTool({
        name: 'skill_get_async_status',
        arguments: { job_id: jobs[agent.index] ?? '' },
      });
      expect(own.isError).toBeFalsy();
      const foreignIndex = (agent.index + 1) % SESSIONS;
      const foreign = await client.callTool({
        name: 'skill_get_async_status',
        arguments: { job_id: jobs[foreignIndex] ?? '' },
      });
      expect(foreign.isError).toBe(true);
      expect(textOf(foreign)).not.toContain(`job-${foreignIndex}`);
    }

    const metrics = await (await fetch(`${gw.metricsBase}/metrics`)).text();
    const value = (series: string) =>
      Number(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 'NaN');
    expect(value('skillgate_sessions_open')).toBe(SESSIONS);
    expect(value('skillgate_unlocks_total')).toBe(SESSIONS * 2);
    expect(value('skillgate_tool_calls_total{kind="run",outcome="ok"}')).toBe(SESSIONS);
    await Promise.all(agents.map((a) => a.client.close()));
  }, 90_000);
});
