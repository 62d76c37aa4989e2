import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BACKEND_HEADER,
  type RedisServer,
  startHaproxy,
  startRedisServer,
  waitFor,
} from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagesOf, openSession, post } from '../helpers/rawHttp.js';
import { serveProcess } from '../helpers/serveProcess.js';
import { startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// Async jobs across two replicas sharing one real redis-server: replica A is a real `skillgate serve`
// process (so it can be killed with SIGKILL), replica B runs in this process. Requests go to each replica's
// own port, so which replica answered is known, not assumed. The 2026-07-28 era has no sessions: a job
// belongs to the principal, so any replica may serve any request without sharing a legacy session.

const MODERN = '2026-07-28';
const PREFIX = 'jobs-replicas-test:';
const SKILL = 'job-probe';
const TICKER = `#!/usr/bin/env bash
# Prints its pid, then "tick N" every 0.1 s until killed.
echo "pid $$"
i=0
while true; do i=$((i + 1)); echo "tick $i"; sleep 0.1; done
`;

interface JobStatus {
  job_id: string;
  state: string;
  stdout: string;
  error?: string;
  cancel_requested?: boolean;
}

interface ToolAnswer {
  readonly status: number;
  /** The replica that answered, when the request went through HAProxy (r0 = A, r1 = B). */
  readonly backend: string | null;
  readonly result?: { isError?: boolean; structuredContent?: Record<string, unknown> };
  readonly error?: { code: number; message: string; data?: { reason?: string } };
}

let requestId = 0;

/** One 2026-07-28 tools/call by raw HTTP to exactly this gateway. */
async function callTool(base: string, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const response = await post(
    new URL('/mcp', base),
    {
      jsonrpc: '2.0',
      id: ++requestId,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'jobs-replicas-test', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    },
    { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name },
  );
  const text = await response.text();
  const body = (text === '' ? {} : JSON.parse(text)) as Omit<ToolAnswer, 'status' | 'backend'>;
  return { status: response.status, backend: response.headers.get(BACKEND_HEADER), ...body };
}

async function startJob(base: string): Promise<string> {
  const answer = await callTool(base, 'run_skill_script', {
    skill: SKILL,
    path: 'scripts/ticker.sh',
    async: true,
  });
  const jobId = answer.result?.structuredContent?.job_id;
  if (typeof jobId !== 'string') throw new Error(`no job started: ${JSON.stringify(answer)}`);
  return jobId;
}

async function status(base: string, jobId: string): Promise<JobStatus> {
  const answer = await callTool(base, 'skill_get_async_status', { job_id: jobId, tail: 5 });
  if (answer.result?.isError === true || answer.result?.structuredContent === undefined) {
    throw new Error(`status failed: ${JSON.stringify(answer)}`);
  }
  return answer.result.structuredContent as unknown as JobStatus;
}

/** Whether a process still exists; a zombie counts as gone. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The pid the ticker printed, once its output reached the store; read through `base`. */
async function pidOf(base: string, jobId: string): Promise<number> {
  const first = await callTool(base, 'skill_get_async_status', { job_id: jobId, tail: 100_000 });
  const stdout = String(first.result?.structuredContent?.stdout ?? '');
  const pid = Number(/^pid (\d+)$/m.exec(stdout)?.[1] ?? Number.NaN);
  if (Number.isNaN(pid)) throw new Error(`no pid in: ${stdout}`);
  return pid;
}

/** The value of one series in a replica's /metrics (NaN when absent). */
async function metric(base: string, series: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
}

/** Replica A: `skillgate serve` as a real process on the shared Redis; resolves once it listens. */
async function serveReplica(config: string, redisUrl: string): Promise<{ proc: ChildProcess; base: string }> {
  const { proc, url } = await serveProcess(config, {
    env: { ...process.env, SKILLGATE_REDIS_URL: redisUrl },
  });
  return { proc, base: url.origin };
}

let work: string;
let redis: RedisServer;
let a: { proc: ChildProcess; base: string };
let b: TestGateway;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillgate-jobs-replicas-'));
  const skillDir = join(work, 'skills', SKILL);
  await mkdir(join(skillDir, 'scripts'), { recursive: true });
  await writeFile(
    join(skillDir, 'SKILL.md'),
    `---\nname: ${SKILL}\ndescription: Test-only long-running script for async jobs across replicas.\n---\n\n# ${SKILL}\n\n\`scripts/ticker.sh\` prints its pid, then a tick every 0.1 s until killed.\n`,
  );
  await writeFile(join(skillDir, 'scripts/ticker.sh'), TICKER);
  await chmod(join(skillDir, 'scripts/ticker.sh'), 0o755);
  redis = await startRedisServer();
  const config = join(work, 'replica-a.yaml');
  await writeFile(
    config,
    [
      'server: { host: 127.0.0.1, port: 0 }',
      `skills: { roots: [${join(work, 'skills')}], async_enabled: true }`,
      'scripts: { sandbox: off, kill_grace_ms: 200 }',
      'jobs: { max_per_session: 2 }',
      `state: { backend: redis, key_prefix: "${PREFIX}" }`,
      'logging: { level: info }',
      '',
    ].join('\n'),
  );
  [a, b] = await Promise.all([
    serveReplica(config, redis.url),
    startTestGateway(
      {
        skills: { roots: [join(work, 'skills')], async_enabled: true },
        scripts: { sandbox: 'off', kill_grace_ms: 200 },
        jobs: { max_per_session: 2 },
        state: { backend: 'redis', key_prefix: PREFIX },
        // No shared rate limit on B, so that with Redis down a tool call reaches the job store (A keeps one).
        rate_limit: { requests_per_second: 0 },
      },
      { ...process.env, SKILLGATE_REDIS_URL: redis.url },
    ),
  ]);
  for (const base of [a.base, b.base]) {
    await waitFor(async () => (await fetch(`${base}/readyz`)).status === 200, { what: `${base} ready` });
  }
}, 60_000);

afterAll(async () => {
  a?.proc.kill('SIGKILL');
  await b?.close();
  await redis?.close();
  await rm(work, { recursive: true, force: true });
});

describe('async jobs across replicas (state.backend: redis)', () => {
  it('shows the live output of a job running on A through B, and a cancel through B stops it on A', async () => {
    const jobId = await startJob(a.base);
    // Live output written by A, read through B: the ticks keep coming while the job runs.
    let seen = '';
    await waitFor(
      async () => {
        seen = (await status(b.base, jobId)).stdout;
        return /tick [3-9]/.test(seen);
      },
      { what: 'live output through B', timeoutMs: 15_000 },
    );
    const pid = await pidOf(b.base, jobId);
    expect(isAlive(pid)).toBe(true);
    const later = await status(b.base, jobId);
    expect(later.state).toBe('running');
    // Each replica counts its own jobs; the shared figure, read from the store, counts A's job on B too.
    expect(await metric(a.base, 'skillgate_jobs_running')).toBe(1);
    expect(await metric(b.base, 'skillgate_jobs_running')).toBe(0);
    await waitFor(async () => (await metric(b.base, 'skillgate_shared_jobs_running')) === 1, {
      what: 'the shared running count on B',
    });

    const cancel = await callTool(b.base, 'skill_cancel_async', { job_id: jobId });
    expect(cancel.result?.isError).not.toBe(true);
    const asked = cancel.result?.structuredContent as unknown as JobStatus;
    expect(asked.state === 'cancelled' || asked.cancel_requested === true).toBe(true);
    // The process runs on A: only A can have stopped it.
    await waitFor(() => !isAlive(pid), { what: 'the script on A to be gone', timeoutMs: 10_000 });
    await waitFor(async () => (await status(b.base, jobId)).state === 'cancelled', {
      what: 'the cancelled state through B',
    });
    expect((await status(a.base, jobId)).state).toBe('cancelled');
    // A counts the end of the job it ran, like a finished run.
    await waitFor(
      async () => (await metric(a.base, 'skillgate_script_runs_total{status="cancelled"}')) === 1,
      {
        what: 'the cancelled run counted on A',
      },
    );
    await waitFor(async () => (await metric(b.base, 'skillgate_shared_jobs_running')) === 0, {
      what: 'the shared running count back to 0',
    });
  });

  it('a job started through B is read and cancelled through A; an unknown id is found on neither', async () => {
    const jobId = await startJob(b.base);
    await waitFor(async () => (await status(a.base, jobId)).stdout.includes('tick'), {
      what: 'output of B’s job through A',
    });
    const foreign = await callTool(a.base, 'skill_get_async_status', { job_id: 'no-such-job' });
    expect(foreign.result?.isError).toBe(true);
    await callTool(a.base, 'skill_cancel_async', { job_id: jobId });
    await waitFor(async () => (await status(b.base, jobId)).state === 'cancelled', { what: 'cancelled' });
  });

  it('through a round-robin balancer, reads of one job land on both replicas and agree', async () => {
    const lb = await startHaproxy({ ports: [Number(new URL(a.base).port), Number(new URL(b.base).port)] });
    try {
      const jobId = await startJob(lb.base);
      const seen = new Map<string, string>();
      await waitFor(
        async () => {
          const answer = await callTool(lb.base, 'skill_get_async_status', { job_id: jobId, tail: 3 });
          const content = answer.result?.structuredContent as unknown as JobStatus | undefined;
          if (answer.backend !== null && content?.state === 'running' && content.stdout.includes('tick')) {
            seen.set(answer.backend, content.stdout);
          }
          return seen.size === 2;
        },
        { what: 'live output answered by both replicas', timeoutMs: 15_000 },
      );
      expect([...seen.keys()].sort()).toEqual(['r0', 'r1']);
      const cancel = await callTool(lb.base, 'skill_cancel_async', { job_id: jobId });
      expect(cancel.result?.isError).not.toBe(true);
      const ended = new Set<string>();
      await waitFor(
        async () => {
          const answer = await callTool(lb.base, 'skill_get_async_status', { job_id: jobId });
          const content = answer.result?.structuredContent as unknown as JobStatus | undefined;
          if (answer.backend !== null && content?.state === 'cancelled') ended.add(answer.backend);
          return ended.size === 2;
        },
        { what: 'both replicas to report the job cancelled' },
      );
    } finally {
      await lb.close();
    }
  });

  it('a 2025-era session’s job, through the balancer: started, read and cancelled on alternating replicas', async () => {
    const lb = await startHaproxy({ ports: [Number(new URL(a.base).port), Number(new URL(b.base).port)] });
    const url = new URL('/mcp', lb.base);
    try {
      const session = await openSession(url);
      const call = async (name: string, args: Record<string, unknown>) => {
        const response = await post(
          url,
          { jsonrpc: '2.0', id: ++requestId, method: 'tools/call', params: { name, arguments: args } },
          { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
        );
        const [body] = await messagesOf(response);
        const result = body?.result as { structuredContent?: Record<string, unknown> } | undefined;
        return { backend: response.headers.get(BACKEND_HEADER), content: result?.structuredContent };
      };
      await call(`skill_${SKILL}_get_info`, {});
      const started = await call(`skill_${SKILL}_run_async_ticker_sh`, {});
      const jobId = String(started.content?.job_id);
      // The job belongs to the session (not the principal): a sessionless caller does not find it.
      expect((await callTool(lb.base, 'skill_get_async_status', { job_id: jobId })).result?.isError).toBe(
        true,
      );
      const live = new Set<string>();
      await waitFor(
        async () => {
          const read = await call('skill_get_async_status', { job_id: jobId });
          if (read.backend !== null && String(read.content?.stdout ?? '').includes('tick'))
            live.add(read.backend);
          return live.size === 2;
        },
        { what: 'live output of the session’s job on both replicas', timeoutMs: 15_000 },
      );
      await call('skill_cancel_async', { job_id: jobId });
      const ended = new Set<string>();
      await waitFor(
        async () => {
          const read = await call('skill_get_async_status', { job_id: jobId });
          if (read.backend !== null && read.content?.state === 'cancelled') ended.add(read.backend);
          return ended.size === 2;
        },
        { what: 'both replicas to report the session’s job cancelled' },
      );
    } finally {
      await lb.close();
    }
  });

  it('holds the running-jobs cap of a principal across replicas (jobs.max_per_session: 2)', async () => {
    const first = await startJob(a.base);
    const second = await startJob(b.base);
    for (const base of [a.base, b.base]) {
      const third = await callTool(base, 'run_skill_script', {
        skill: SKILL,
        path: 'scripts/ticker.sh',
        async: true,
      });
      expect(third.result?.isError).toBe(true);
      expect(JSON.stringify(third.result)).toContain('JOB_LIMIT');
    }
    await callTool(b.base, 'skill_cancel_async', { job_id: first });
    await callTool(a.base, 'skill_cancel_async', { job_id: second });
    for (const jobId of [first, second]) {
      await waitFor(async () => (await status(a.base, jobId)).state === 'cancelled', { what: 'cancelled' });
    }
    // A slot freed on one replica is usable from the other.
    const again = await startJob(b.base);
    await callTool(a.base, 'skill_cancel_async', { job_id: again });
    await waitFor(async () => (await status(b.base, again)).state === 'cancelled', { what: 'cancelled' });
  });

  it('reports a job lost, with a reason, once its replica is killed with SIGKILL', async () => {
    const jobId = await startJob(a.base);
    await waitFor(async () => (await status(b.base, jobId)).stdout.includes('tick'), {
      what: 'output of the job through B',
      timeoutMs: 15_000,
    });
    const pid = await pidOf(b.base, jobId);
    const killedAt = Date.now();
    a.proc.kill('SIGKILL');
    // Heartbeats every 2 s, a replica silent for 6 s is dead: lost well within 15 s, never running forever.
    let lost: JobStatus | undefined;
    await waitFor(
      async () => {
        lost = await status(b.base, jobId);
        return lost.state !== 'running';
      },
      { what: 'the job to be reported lost', timeoutMs: 15_000, intervalMs: 200 },
    );
    const elapsedMs = Date.now() - killedAt;
    expect(lost?.state).toBe('lost');
    expect(lost?.error).toMatch(/stopped answering; its outcome is unknown/);
    // What A had written before it died is still there.
    expect(lost?.stdout).toMatch(/tick \d+/);
    console.log(JSON.stringify({ lostAfterMs: elapsedMs }));
    // A's watchdog takes its scripts with it.
    await waitFor(() => !isAlive(pid), { what: 'the orphaned script to be gone', timeoutMs: 10_000 });
  });

  it('answers a clear error, not a hang, while Redis is down, and recovers when it returns', async () => {
    const jobId = await startJob(b.base);
    await redis.stop();
    try {
      for (const [name, args] of [
        ['skill_get_async_status', { job_id: jobId }],
        ['skill_cancel_async', { job_id: jobId }],
      ] as const) {
        const started = Date.now();
        const answer = await callTool(b.base, name, args);
        // The tool call reaches the job store and answers a JSON-RPC error naming the cause, never a result
        // made up from memory. (With the shared rate limit on, the request is refused earlier with a 503.)
        expect(answer.status).toBe(200);
        expect(answer.error).toMatchObject({ code: -32000, data: { reason: 'STATE_UNAVAILABLE' } });
        expect(Date.now() - started).toBeLessThan(5000);
      }
    } finally {
      await redis.start();
    }
    await waitFor(async () => (await fetch(`${b.base}/readyz`)).status === 200, {
      what: 'B ready again',
      timeoutMs: 15_000,
    });
    // A Redis that hangs (connections open, no answers) costs a bounded wait too: the command timeout.
    redis.pause();
    try {
      const started = Date.now();
      const answer = await callTool(b.base, 'skill_get_async_status', { job_id: jobId });
      expect(answer.error).toMatchObject({ code: -32000, data: { reason: 'STATE_UNAVAILABLE' } });
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      redis.resume();
    }
    // The job kept running on B meanwhile; its record is current again and it can be cancelled.
    await waitFor(async () => (await status(b.base, jobId)).state === 'running', { what: 'the job again' });
    await callTool(b.base, 'skill_cancel_async', { job_id: jobId });
    await waitFor(async () => (await status(b.base, jobId)).state === 'cancelled', { what: 'cancelled' });
  });
});
