import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BACKEND_HEADER, type Haproxy, startHaproxy, waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';

// Plain HTTP backends stand in for gateway replicas: this checks the balancer the replica tests rely on.
const servers: Server[] = [];
let proxy: Haproxy | undefined;

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function backend(name: string): Promise<{ port: number; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url === '/sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${name} 1\n\n`);
      // A quiet gap longer than any short proxy timeout, then the second event.
      setTimeout(() => res.end(`data: ${name} 2\n\n`), 1500);
      return;
    }
    res.end(name);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, server };
}

describe('haproxy test helper', () => {
  it('alternates requests between the backends, one keep-alive client included, and names the backend', async () => {
    const a = await backend('a');
    const b = await backend('b');
    proxy = await startHaproxy({ ports: [a.port, b.port] });
    const served: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${proxy.base}/mcp`);
      served.push(`${await res.text()}:${res.headers.get(BACKEND_HEADER)}`);
    }
    // Health checks do not count: requests strictly alternate.
    const first = served[0];
    expect(['a:r0', 'b:r1']).toContain(first);
    const other = first === 'a:r0' ? 'b:r1' : 'a:r0';
    expect(served).toEqual([first, other, first, other, first, other]);
  });

  it('takes a backend whose health check fails out of rotation', async () => {
    const a = await backend('a');
    const b = await backend('b');
    proxy = await startHaproxy({ ports: [a.port, b.port], checkIntervalMs: 200 });
    b.server.closeAllConnections();
    await new Promise((r) => b.server.close(r));
    const p = proxy;
    await waitFor(
      async () => {
        const bodies = await Promise.all([1, 2, 3, 4].map(() => fetch(`${p.base}/x`).then((r) => r.text())));
        return bodies.every((t) => t === 'a');
      },
      { what: 'every request served by the healthy backend' },
    );
  });

  it('passes an SSE stream with quiet gaps through unbuffered', async () => {
    const a = await backend('a');
    proxy = await startHaproxy({ ports: [a.port] });
    const res = await fetch(`${proxy.base}/sse`);
    const reader = res.body?.getReader();
    const first = await reader?.read();
    expect(new TextDecoder().decode(first?.value)).toBe('data: a 1\n\n');
    let rest = '';
    for (;;) {
      const chunk = await reader?.read();
      if (chunk === undefined || chunk.done) break;
      rest += new TextDecoder().decode(chunk.value);
    }
    expect(rest).toBe('data: a 2\n\n');
  });
});

describe('configs/haproxy.cfg', () => {
  it('is a valid HAProxy configuration', () => {
    const file = new URL('../../../../configs/haproxy.cfg', import.meta.url).pathname;
    // Throws (non-zero exit) on an invalid file; the compose service names need not resolve here.
    const out = execFileSync('haproxy', ['-c', '-f', file], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(out).toMatch(/Configuration file is valid/);
  });
});
