// Per-person credentials (docs/credentials.md): what a call with the caller's own connected token costs the
// gateway against the same call with one shared `headers_from_env` header, in the same run and against the
// same upstream (which verifies the JWT either way); the credential read each such call makes (file and Redis
// store); and a connect round trip, from the call that answers with the link to the "connected" page.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type CredentialsSettings, createCredentials } from '@skillgate/credentials';
import { createRedisConnection } from '@skillgate/state';
import {
  type AuthorizationServer,
  startAuthorizationServer,
  startHttpUpstream,
  startRedisServer,
  waitFor,
} from '@skillgate/testkit';
import type { BenchContext } from './context.js';
import { percentile, startServer } from './support.js';
import { TARGETS } from './targets.js';
import { type CallFigures, callThroughCatalog, compare } from './upstreamOverhead.js';

/** A credential read's p50 (wall) and this process's CPU per read, in µs. */
export interface ReadFigures {
  readonly p50Micros: number;
  readonly cpuMicros: number;
}

/** What the phase measured (bench-results' `credentials`). */
export interface CredentialsBenchResult {
  /** An upstream call with the caller's cached connected token, and with a shared static header. */
  readonly calls: { readonly connectedToken: CallFigures; readonly sharedHeader: CallFigures };
  /** One credential read as a call makes it (store read + AES-256-GCM open), per store. */
  readonly reads: { readonly file: ReadFigures; readonly redis: ReadFigures };
  /** Connect round trips, p50 and p99 in ms. */
  readonly connect: { readonly p50Ms: number; readonly p99Ms: number; readonly runs: number };
}

// The public URL the provider redirects to; nothing listens there: the callback is taken to the gateway's own
// address, as a TLS-terminating proxy would forward it.
const PUBLIC_URL = 'http://skillgate.bench.test';
const CLIENT = {
  id: 'skillgate',
  secret: 'skillgate-bench-secret-0123',
  redirectUris: [`${PUBLIC_URL}/connect/callback`],
};
const TOKEN = 'bench-principal-token-0123456789';
const KEY = Buffer.alloc(32, 7).toString('base64');

/** Runs the phase; returns its figures for bench-results. */
export async function credentialsBench(options: BenchContext): Promise<CredentialsBenchResult> {
  const { row, fmt, note, quick } = options;
  const work = await mkdtemp(join(tmpdir(), 'skillgate-bench-credentials-'));
  // Tokens outlive the phase: every measured call uses the cached one, none refreshes.
  const server = await startAuthorizationServer({
    clients: [CLIENT],
    scopes: ['repo'],
    accessTokenTtlSeconds: 3600,
  });
  const upstream = await startHttpUpstream(['--require-audience', server.issuer]);
  const stops: Array<() => Promise<unknown>> = [server.close, upstream.stop];
  try {
    const shared = await server.token(CLIENT, { resource: upstream.url });
    const gateway = await startServer('gateway', work, 'eager', 'off', {
      BENCH_UPSTREAMS: JSON.stringify([
        {
          id: 'connected',
          url: upstream.url,
          tools: ['echo'],
          max_concurrent: 64,
          auth: { provider: 'acme' },
        },
        {
          id: 'shared',
          url: upstream.url,
          tools: ['echo'],
          max_concurrent: 64,
          headers_from_env: { Authorization: 'BENCH_SHARED_AUTH' },
        },
      ]),
      BENCH_CONFIG: JSON.stringify({
        server: { public_url: PUBLIC_URL },
        auth: { tokens: [{ name: 'bench', token_env: 'BENCH_TOKEN' }] },
        credentials: {
          store: 'file',
          file: join(work, 'credentials.json'),
          keys: [{ id: 'k1', env: 'BENCH_CREDENTIALS_KEY' }],
          providers: [
            {
              id: 'acme',
              oauth: {
                issuer: server.issuer,
                client_id_env: 'BENCH_ACME_ID',
                client_secret_env: 'BENCH_ACME_SECRET',
                scopes: ['repo'],
                resource: upstream.url,
              },
            },
          ],
        },
      }),
      BENCH_SHARED_AUTH: `Bearer ${shared}`,
      BENCH_TOKEN: TOKEN,
      BENCH_CREDENTIALS_KEY: KEY,
      BENCH_ACME_ID: CLIENT.id,
      BENCH_ACME_SECRET: CLIENT.secret,
    });
    stops.push(gateway.stop);
    const mcp = new URL(`${gateway.url}/mcp`);
    const client = async (modern: boolean): Promise<Client> => {
      const c = new Client(
        { name: 'skillgate-bench', version: '1.0.0' },
        modern ? { versionNegotiation: { mode: 'auto' } } : {},
      );
      await c.connect(
        new StreamableHTTPClientTransport(mcp, {
          requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
        }),
      );
      stops.push(() => c.close());
      return c;
    };

    const connect = await connectRoundTrips(await client(false), gateway.url, server, quick ? 5 : 20);
    const calls = await compare(
      {
        sharedHeader: callThroughCatalog(await client(true), 'shared'),
        connectedToken: callThroughCatalog(await client(true), 'connected'),
      },
      {
        samples: quick ? 150 : 600,
        seconds: quick ? 3 : 9,
        // Finer alternation than the upstream rows: the two ways differ by a few per cent, the machine's load
        // from elsewhere by more.
        rounds: quick ? 3 : 6,
        concurrency: 8,
        gatewayPid: gateway.pid,
      },
    );
    const connectedToken = figures(calls, 'connectedToken');
    const sharedHeader = figures(calls, 'sharedHeader');
    const reads = {
      file: await readCost({ store: 'file', file: join(work, 'reads.json') }, quick),
      redis: await readCost({ store: 'redis' }, quick, stops),
    };

    const ratio = connectedToken.gatewayCpuMsPerCall / sharedHeader.gatewayCpuMsPerCall;
    row(
      'credentials',
      "gateway CPU per upstream call, caller's own cached token (2026-07-28)",
      `${fmt(connectedToken.gatewayCpuMsPerCall * 1000)} µs`,
      `shared headers_from_env ${fmt(sharedHeader.gatewayCpuMsPerCall * 1000)} µs`,
      `${fmt((ratio - 1) * 100, 1)}%`,
      TARGETS.ownCredential,
      ratio - 1,
    );
    row(
      'credentials',
      "upstream call p50 / calls/s, caller's own cached token",
      `${fmt(connectedToken.p50Ms, 2)} ms / ${fmt(connectedToken.callsPerSecond)}`,
      `shared header ${fmt(sharedHeader.p50Ms, 2)} ms / ${fmt(sharedHeader.callsPerSecond)}`,
      '',
      'reported',
    );
    row(
      'credentials',
      'credential read per call (store read + open) p50, file / redis',
      `${fmt(reads.file.p50Micros, 1)} / ${fmt(reads.redis.p50Micros, 1)} µs`,
      `CPU per read ${fmt(reads.file.cpuMicros, 1)} / ${fmt(reads.redis.cpuMicros, 1)} µs`,
      `file read ${fmt((reads.file.cpuMicros / 1000 / sharedHeader.gatewayCpuMsPerCall) * 100, 1)}% of a call's CPU`,
      'reported',
    );
    row(
      'credentials',
      `connect round trip p50 / p99 (${connect.runs} runs)`,
      `${fmt(connect.p50Ms, 1)} / ${fmt(connect.p99Ms, 1)} ms`,
      '',
      '',
      'reported',
    );
    note(
      "Credentials: the test upstream's echo (it verifies the JWT's signature and audience on every call) through two upstream entries of one gateway, one with auth.provider (the bench principal's connected token, cached in the file store), one with headers_from_env carrying a token of the same server, called in alternation (6 rounds, 3 with BENCH_QUICK; 8 in flight) by the same principal; CPU is the gateway process's. Credential read: createCredentials' headersFor of a connected secret as each such call makes it (the file store stats its file and parses it only when it changed; every read opens the record), in this process, Redis on loopback; its CPU includes libuv's threads. Connect round trip: the call answered with CONNECT_REQUIRED, the token form, the redirect to oidc-provider (its sign-in and consent complete themselves), the callback, 'Connected'; disconnected between runs.",
    );
    return { calls: { connectedToken, sharedHeader }, reads, connect };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await rm(work, { recursive: true, force: true });
  }
}

const figures = (all: Record<string, CallFigures>, name: string): CallFigures => {
  const f = all[name];
  if (f === undefined) throw new Error(`no figures for ${name}`);
  return f;
};

/**
 * Connects the bench principal `runs` times, as a browser would: the call that answers with the link, the token
 * form, the provider, the callback; the last connection stays. Milliseconds per round trip.
 */
async function connectRoundTrips(
  client: Client,
  base: string,
  server: AuthorizationServer,
  runs: number,
): Promise<CredentialsBenchResult['connect']> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (i > 0) {
      const removed = await fetch(`${base}/connections/acme`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      if (removed.status !== 204) throw new Error(`disconnect answered ${removed.status}`);
    }
    const began = performance.now();
    const asked = await client.callTool({ name: 'skill_connected_call_echo', arguments: { text: 'x' } });
    const link = String((asked.structuredContent as { url?: unknown } | undefined)?.url);
    const browser = cookieBrowser(base);
    const bound = await browser.send(link, { token: TOKEN });
    const toProvider = await browser.send(bound.location);
    const done = await browser.send(await server.authorize(toProvider.location));
    if (done.status !== 200 || !done.text.includes('Connected')) {
      throw new Error(`connect ended with ${done.status}: ${done.text.slice(0, 200)}`);
    }
    times.push(performance.now() - began);
  }
  return { p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), runs };
}

/** A browser on the gateway's pages: one cookie, Origin on forms, public URLs taken to the gateway's address. */
function cookieBrowser(base: string) {
  let cookie: string | undefined;
  return {
    async send(url: string, form?: Record<string, string>) {
      const at = new URL(url, base);
      const headers: Record<string, string> = cookie === undefined ? {} : { cookie };
      const init: RequestInit =
        form === undefined
          ? { headers }
          : {
              method: 'POST',
              body: new URLSearchParams(form).toString(),
              headers: { ...headers, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
            };
      const response = await fetch(new URL(`${at.pathname}${at.search}`, base), {
        ...init,
        redirect: 'manual',
      });
      cookie = response.headers.get('set-cookie')?.split(';')[0] ?? cookie;
      const location = response.headers.get('location') ?? '';
      return { status: response.status, location, text: await response.text() };
    },
  };
}

/** headersFor on a connected secret provider, as a call makes it: one store read and one AES-256-GCM open. */
async function readCost(
  store: Pick<CredentialsSettings, 'store' | 'file'>,
  quick: boolean,
  stops: Array<() => Promise<unknown>> = [],
): Promise<ReadFigures> {
  const redis = store.store === 'redis' ? await startRedisServer() : undefined;
  const connection =
    redis === undefined
      ? undefined
      : createRedisConnection({ url: redis.url, keyPrefix: 'bench-credentials:' });
  if (redis !== undefined) stops.push(redis.close);
  if (connection !== undefined) await waitFor(() => connection.client.status === 'ready', { what: 'Redis' });
  const credentials = createCredentials({
    settings: {
      ...store,
      keys: [{ id: 'k1', env: 'KEY' }],
      publicUrl: PUBLIC_URL,
      providers: [{ id: 'acme', kind: 'secret', label: 'ACME API key' }],
      upstreams: [{ upstream: 'acme', kind: 'provider', provider: 'acme', header: 'X-API-Key' }],
      scripts: [],
    },
    env: { KEY },
    ...(connection === undefined ? {} : { redis: connection }),
  });
  try {
    const flow = await credentials.startFlow('token:bench', 'acme');
    await credentials.storeSecret(flow.id, 'token:bench', 'acme-secret-0123456789');
    const reads = quick ? 2000 : 10_000;
    const read = async (): Promise<number> => {
      const began = performance.now();
      const answer = await credentials.headersFor('acme', 'token:bench');
      if (answer.kind !== 'headers') throw new Error(`no credential read: ${answer.kind}`);
      return performance.now() - began;
    };
    for (let i = 0; i < 200; i++) await read();
    const times: number[] = [];
    const cpu = process.cpuUsage();
    for (let i = 0; i < reads; i++) times.push(await read());
    const used = process.cpuUsage(cpu);
    return { p50Micros: percentile(times, 50) * 1000, cpuMicros: (used.user + used.system) / reads };
  } finally {
    await credentials.close();
    await connection?.close();
  }
}
