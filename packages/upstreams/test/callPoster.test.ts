import { waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { CallEnd } from '../src/calls/callEnd.js';
import { type CallPoster, createCallPoster, type ResponseReader } from '../src/wire/callPoster.js';
import { closeRawServers, json, rawServer } from './fixtures/rawServer.js';

const posters: CallPoster[] = [];
afterEach(async () => {
  for (const p of posters.splice(0)) p.close();
  await closeRawServers();
});

function posterOf(): CallPoster {
  const p = createCallPoster();
  posters.push(p);
  return p;
}

// Reads a body whole as text, with its status and content type.
const wholeText = (status: number, type: string): ResponseReader<string> => {
  let text = '';
  return {
    push(chunk) {
      text += chunk.toString();
      return undefined;
    },
    end: () => `${status} ${type} ${text}`,
  };
};

// undici's pool frees a connection just after the answer's end is handed to the reader: a call made in the
// same turn takes another connection, one made in the next reuses it.
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

const post = (p: CallPoster, url: string, end?: CallEnd) =>
  p.post(
    new URL(url),
    {
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
      ...(end === undefined ? {} : { end }),
    },
    wholeText,
  );

describe('createCallPoster', () => {
  it('keeps the connection alive across calls and hands each answer to its reader', async () => {
    const server = await rawServer((socket, nth) => socket.write(json(`{"n":${nth}}`)));
    const p = posterOf();
    for (let i = 1; i <= 3; i++) {
      expect(await post(p, server.url)).toBe(`200 application/json {"n":${i}}`);
      await nextTurn();
    }
    expect(server.connections()).toBe(1);
  });

  it('sends a call again on a new connection when the server reset the kept-alive one it was sent on', async () => {
    // Each connection answers its first request and resets on the second, as a server closing an idle
    // connection just as it is reused does.
    const server = await rawServer((socket, nth) => {
      if (nth === 1) socket.write(json('{"ok":true}'));
      else socket.resetAndDestroy();
    });
    const p = posterOf();
    expect(await post(p, server.url)).toBe('200 application/json {"ok":true}');
    await nextTurn();
    expect(await post(p, server.url)).toBe('200 application/json {"ok":true}');
    expect(server.connections()).toBe(2);
  });

  it('stops reading an endless stream once the reader has its value, and closes that connection', async () => {
    let closed = 0;
    const server = await rawServer((socket) => {
      socket.once('close', () => {
        closed += 1;
      });
      socket.write(
        'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n',
      );
      // An event every 5 ms, never the stream's end.
      const timer = setInterval(() => socket.write('7\r\ndata:\n\n\r\n'), 5);
      socket.once('close', () => clearInterval(timer));
    });
    let chunks = 0;
    const first = await posterOf().post(new URL(server.url), { headers: {}, body: '{}' }, () => ({
      push: () => {
        chunks += 1;
        return chunks === 2 ? 'enough' : undefined;
      },
      end: () => 'ended',
    }));
    expect(first).toBe('enough');
    await waitFor(() => closed === 1);
    expect(chunks).toBe(2);
  });

  it("the call's end ends a request the upstream never answers, and its connection", async () => {
    let closed = false;
    const server = await rawServer((socket) => {
      socket.once('close', () => {
        closed = true;
      });
    });
    const end = new CallEnd();
    const pending = post(posterOf(), server.url, end);
    await waitFor(() => server.connections() === 1);
    end.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await waitFor(() => closed);
  });
});
