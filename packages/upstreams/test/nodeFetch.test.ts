import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamsError } from '../src/upstreamsError.js';
import { createNodeFetch, type NodeFetch } from '../src/wire/nodeFetch.js';
import { closeRawServers, json, rawServer } from './fixtures/rawServer.js';

const fetches: NodeFetch[] = [];
afterEach(async () => {
  for (const f of fetches.splice(0)) f.close();
  await closeRawServers();
});

function fetchOf(maxBodyBytes = 1024): NodeFetch {
  const f = createNodeFetch({ maxBodyBytes });
  fetches.push(f);
  return f;
}

const post = (f: NodeFetch, url: string, body = '{"a":1}') =>
  f.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('createNodeFetch', () => {
  it('keeps the connection alive across requests', async () => {
    const server = await rawServer((socket, nth) => socket.write(json(`{"n":${nth}}`)));
    const f = fetchOf();
    for (let i = 1; i <= 3; i++) {
      const response = await post(f, server.url);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ n: i });
    }
    expect(server.connections()).toBe(1);
  });

  it('sends a request again on a new connection when the server reset the kept-alive one it was sent on', async () => {
    // Each connection answers its first request and resets on the second, as a server closing an idle
    // connection just as it is reused does.
    const server = await rawServer((socket, nth) => {
      if (nth === 1) socket.write(json('{"ok":true}'));
      else socket.resetAndDestroy();
    });
    const f = fetchOf();
    expect(await (await post(f, server.url)).json()).toEqual({ ok: true });
    expect(await (await post(f, server.url)).json()).toEqual({ ok: true });
    expect(server.connections()).toBe(2);
  });

  it('refuses a body over the cap without reading it all', async () => {
    const server = await rawServer((socket) => socket.write(json(`"${'x'.repeat(4096)}"`)));
    const refused = post(fetchOf(1024), server.url);
    await expect(refused).rejects.toBeInstanceOf(UpstreamsError);
    await expect(refused).rejects.toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
  });

  it('streams an event stream as it comes, and an abort ends it', async () => {
    const server = await rawServer((socket) => {
      socket.write(
        'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n' +
          '13\r\ndata: {"first":1}\n\n\r\n',
      );
    });
    const controller = new AbortController();
    const response = await fetchOf().fetch(server.url, {
      method: 'POST',
      body: '{}',
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    const first = await reader?.read();
    expect(new TextDecoder().decode(first?.value)).toBe('data: {"first":1}\n\n');
    controller.abort();
    await expect(reader?.read()).rejects.toThrow();
  });

  it('rejects at once when the signal is already aborted', async () => {
    const server = await rawServer((socket) => socket.write(json('{}')));
    const controller = new AbortController();
    controller.abort();
    await expect(
      fetchOf().fetch(server.url, { method: 'POST', body: '{}', signal: controller.signal }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.connections()).toBe(0);
  });
});
