import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { NativeHttpTransport } from '../../../src/legacy/nativeHttpTransport.js';

// A 2025-era stream is closed once the output a client leaves unread passes max_response_bytes. The bound read
// the response's writableLength, which counts a string chunk in UTF-16 units: multi-byte text could pile up to
// three times the bound (3 bytes per unit) before the stream was closed. Chunks are written as bytes now.
const BOUND = 1_000_000;
const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

describe('the unread-output bound of a 2025-era stream', () => {
  it('counts bytes: multi-byte notifications a paused client leaves unread close the stream past the bound', async () => {
    const transport = new NativeHttpTransport('session-1', { maxBatch: 10, maxResponseBytes: BOUND });
    let stream: ServerResponse | undefined;
    const server = createServer((req, res) => {
      stream = res;
      void transport.handleRequest(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => server.close());
    const { port } = server.address() as AddressInfo;
    // A client that opens the GET stream and never reads it.
    const client = connect({ host: '127.0.0.1', port });
    closers.push(() => client.destroy());
    client.pause();
    client.write('GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\n\r\n');
    await waitFor(() => stream !== undefined, { what: 'the stream open' });
    const res = stream as ServerResponse;
    const notify = (text: string) =>
      transport.send({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: text },
      });
    // The kernel's buffers take the first output; then what is left unread waits in the response.
    for (let i = 0; i < 1000 && res.writableLength === 0 && !res.destroyed; i++)
      await notify('x'.repeat(16_384));
    expect(res.writableLength).toBeGreaterThan(0);
    // 400,000 units of 3-byte text: 1.2 MB unread, past the bound, in fewer units than the bound.
    for (let i = 0; i < 4 && !res.destroyed; i++) await notify('€'.repeat(100_000));
    expect(res.destroyed).toBe(true);
  });
});
