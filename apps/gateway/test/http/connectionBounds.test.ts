import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '@skillgate/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACCEPT, openSession } from '../helpers/rawHttp.js';
import {
  connectClient,
  startTestGateway,
  type TestClient,
  type TestGateway,
} from '../helpers/testGateway.js';

/** A raw TCP client: what it received, and whether the server has closed it. */
interface RawConnection {
  readonly socket: Socket;
  received(): string;
  closed(): boolean;
  /** ms from connect to close, once closed. */
  closedAfterMs(): number | undefined;
}

const sockets: Socket[] = [];
const timers: NodeJS.Timeout[] = [];
afterEach(() => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  for (const socket of sockets.splice(0)) socket.destroy();
});

/** Opens a TCP connection to the gateway (from `localAddress`, so tests can play a second client host). */
function open(base: string, localAddress = '127.0.0.1'): Promise<RawConnection> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let data = '';
    let closedAt: number | undefined;
    const socket = connect({ host: hostname, port: Number(port), localAddress }, () =>
      resolve({
        socket,
        received: () => data,
        closed: () => closedAt !== undefined,
        closedAfterMs: () => (closedAt === undefined ? undefined : closedAt - started),
      }),
    );
    sockets.push(socket);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      data += chunk;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      closedAt = Date.now();
    });
    socket.once('error', reject);
  });
}

/** Writes `text` one byte per `everyMs`, like a slowloris client that keeps its socket busy. */
function dribble(connection: RawConnection, text: string, everyMs = 100): void {
  let i = 0;
  const timer = setInterval(() => {
    if (i >= text.length || connection.closed()) return clearInterval(timer);
    connection.socket.write(text[i++] ?? '');
  }, everyMs);
  timers.push(timer);
}

const HEALTHZ = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n';

/** Sends GET /healthz on a kept-alive connection and waits for its 200. */
async function healthz(connection: RawConnection): Promise<void> {
  const before = connection.received().length;
  connection.socket.write(HEALTHZ);
  await waitFor(() => connection.received().slice(before).includes('"status":"ok"') || connection.closed(), {
    what: 'the /healthz answer',
  });
  expect(connection.received().slice(before)).toMatch(/^HTTP\/1\.1 200/);
}

/** Sums the series of a counter in the gateway's /metrics text. */
async function metric(gw: TestGateway, series: string): Promise<number> {
  const text = await (await fetch(`${gw.base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('slow clients are timed out (headers, body, keep-alive) while others are served', () => {
  let gw: TestGateway;
  let healthy: TestClient;
  beforeAll(async () => {
    gw = await startTestGateway({
      server: { headers_timeout_seconds: 1, request_timeout_seconds: 1, keep_alive_timeout_seconds: 1 },
    });
    healthy = await connectClient(gw.url);
  });
  afterAll(async () => {
    await healthy.close();
    await gw.close();
  });

  /** Runs tools/list on the healthy client until `done` settles; returns how many were answered. */
  async function servedWhile(done: Promise<void>): Promise<number> {
    let finished = false;
    let served = 0;
    const loop = (async () => {
      while (!finished) {
        const { tools } = await healthy.client.listTools();
        expect(tools.length).toBeGreaterThan(0);
        served += 1;
        await sleep(20);
      }
    })();
    try {
      await done;
    } finally {
      finished = true;
      await loop;
    }
    return served;
  }

  it('closes 60 sockets dribbling their headers soon after a 1 s headers timeout, with 408, while a healthy client is served', async () => {
    const attack = await Promise.all(Array.from({ length: 60 }, () => open(gw.base)));
    // Far more header than the timeout lets through at one byte per 100 ms; each byte resets idle timers.
    for (const c of attack)
      dribble(c, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ${'a'.repeat(300)}\r\n`);
    const served = await servedWhile(
      waitFor(() => attack.every((c) => c.closed()), {
        timeoutMs: 8000,
        what: 'every slow-header socket to close',
      }),
    );
    expect(served).toBeGreaterThan(0);
    for (const c of attack) expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes a socket that sends its headers and then dribbles the body, after the request timeout', async () => {
    const c = await open(gw.base);
    c.socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: ${ACCEPT}\r\nContent-Length: 1000\r\n\r\n`,
    );
    dribble(c, ' '.repeat(1000));
    const served = await servedWhile(
      waitFor(() => c.closed(), { timeoutMs: 8000, what: 'the slow-body socket to close' }),
    );
    expect(served).toBeGreaterThan(0);
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes a kept-alive connection idle past the keep-alive timeout, after answering its request', async () => {
    const c = await open(gw.base);
    await healthz(c);
    await waitFor(() => c.closed(), { timeoutMs: 8000, what: 'the idle kept-alive socket to close' });
  });

  it('does not time out a GET stream or a tool call that outlast the request timeout', async () => {
    const session = await openSession(gw.url);
    const stream = await fetch(gw.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': session },
    });
    expect(stream.status).toBe(200);
    let ended = false;
    const reader = stream.body?.getReader();
    const drained = (async () => {
      while (reader !== undefined && !(await reader.read().catch(() => ({ done: true }))).done);
      ended = true;
    })();
    await healthy.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
    // Silent for 2.5 s on the wire: more than twice the request timeout and the keep-alive timeout.
    const result = await healthy.client.callTool({
      name: 'skill_gateway-probe_run_slow_py',
      arguments: { args: ['--seconds', '2.5'] },
    });
    expect((result.structuredContent as { stdout: string }).stdout).toContain('finished');
    expect(ended).toBe(false);
    await reader?.cancel();
    await drained;
  });
});

describe('connections are capped per client address and in all', () => {
  let gw: TestGateway;
  let healthy: TestClient;
  beforeAll(async () => {
    gw = await startTestGateway({ server: { max_connections_per_address: 5 } });
    healthy = await connectClient(gw.url);
  });
  afterAll(async () => {
    await healthy.close();
    await gw.close();
  });

  it('refuses connections from one address over the cap, serves them again once it has room, and serves other addresses throughout', async () => {
    // 127.0.0.2 plays a second client host; the healthy client connects from 127.0.0.1.
    const held: RawConnection[] = [];
    for (let i = 0; i < 5; i++) {
      const c = await open(gw.base, '127.0.0.2');
      await healthz(c);
      held.push(c);
    }
    const over = await Promise.all(Array.from({ length: 5 }, () => open(gw.base, '127.0.0.2')));
    await waitFor(() => over.every((c) => c.closed()), { what: 'the connections over the cap to be closed' });
    for (const c of over) expect(c.received()).toBe('');
    expect((await healthy.client.listTools()).tools.length).toBeGreaterThan(0);
    for (const c of held) await healthz(c);
    expect(await metric(gw, 'skillgate_rejected_connections_total{reason="per_address"}')).toBe(5);

    held[0]?.socket.destroy();
    // The server counts the slot free once it sees the close: a new connection is served from then on.
    await waitFor(
      async () => {
        const c = await open(gw.base, '127.0.0.2');
        c.socket.write(HEALTHZ);
        await waitFor(() => c.closed() || c.received().includes('"status":"ok"'), {
          what: 'an answer or a close',
        });
        return c.received().startsWith('HTTP/1.1 200');
      },
      { what: 'a connection from the capped address to be served again' },
    );
  });

  it('does not apply the per-address cap behind a trusted proxy, where every connection comes from the proxy', async () => {
    const proxied = await startTestGateway({ server: { max_connections_per_address: 2, trust_proxy: true } });
    try {
      const held = await Promise.all(Array.from({ length: 4 }, () => open(proxied.base)));
      for (const c of held) await healthz(c);
    } finally {
      await proxied.close();
    }
  });

  it('closes connections over server.max_connections on accept and counts them', async () => {
    const small = await startTestGateway({ server: { max_connections: 3 } });
    try {
      const held: RawConnection[] = [];
      for (let i = 0; i < 3; i++) {
        const c = await open(small.base);
        await healthz(c);
        held.push(c);
      }
      const over = await open(small.base);
      await waitFor(() => over.closed(), { what: 'the connection over max_connections to be closed' });
      expect(over.received()).toBe('');
      held[0]?.socket.destroy();
      await waitFor(() => held[0]?.closed() === true);
      // A slot is free once the server has seen the close; until then /metrics itself is refused.
      await waitFor(
        async () =>
          (await metric(small, 'skillgate_rejected_connections_total{reason="max_connections"}').catch(
            () => 0,
          )) >= 1,
        { what: 'the refused connection to be counted' },
      );
    } finally {
      await small.close();
    }
  });
});

describe('a client that stops reading', () => {
  let gw: TestGateway;
  let skills: string;
  beforeAll(async () => {
    // A 5 MB asset answers with ~6.7 MB of base64: more than the kernel's socket buffers take on loopback.
    skills = await mkdtemp(join(tmpdir(), 'skillgate-unread-'));
    const skill = join(skills, 'bulky');
    await mkdir(join(skill, 'assets'), { recursive: true });
    await writeFile(
      join(skill, 'SKILL.md'),
      '---\nname: bulky\ndescription: One large asset.\n---\nRead it.\n',
    );
    await writeFile(join(skill, 'assets', 'blob.bin'), randomBytes(5_000_000));
    gw = await startTestGateway({ skills: { roots: [skills] }, server: { send_timeout_seconds: 1 } });
  });
  afterAll(async () => {
    await gw.close();
    await rm(skills, { recursive: true, force: true });
  });

  const readBlob = () =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'skill_bulky_read_blob_bin', arguments: {} },
    });

  it('loses its connection after server.send_timeout_seconds, while a reading client gets the whole answer', async () => {
    const session = await openSession(gw.url);
    const unlock = await fetch(gw.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': session },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'skill_bulky_get_info', arguments: {} },
      }),
    });
    await unlock.text();
    const { hostname, port } = new URL(gw.base);
    const body = readBlob();
    const stalled = connect({ host: hostname, port: Number(port) });
    sockets.push(stalled);
    // No 'data' listener and paused: the socket reads nothing once node's small read buffer is full.
    stalled.pause();
    let closed = false;
    stalled.on('error', () => {});
    stalled.on('close', () => {
      closed = true;
    });
    stalled.write(
      `POST ${gw.url.pathname} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
        `Accept: ${ACCEPT}\r\nMcp-Session-Id: ${session}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    // The same answer to a client that reads: all of it arrives.
    const reading = await fetch(gw.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': session },
      body: body.replace('"id":7', '"id":8'),
    });
    expect(reading.status).toBe(200);
    expect((await reading.text()).length).toBeGreaterThan(6_600_000);
    await waitFor(
      async () => (await metric(gw, 'skillgate_rejected_connections_total{reason="unread_output"}')) === 1,
      { what: 'the stalled connection to be dropped', timeoutMs: 15_000 },
    );
    // A paused socket notices the close only once it reads again: then it ends, short of the answer.
    let received = 0;
    stalled.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    stalled.resume();
    await waitFor(() => closed, { what: 'the stalled client to see the close' });
    expect(received).toBeLessThan(6_600_000);
  });
});
