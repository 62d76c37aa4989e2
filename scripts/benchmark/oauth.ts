// tools/list (2026-07-28) with an OAuth JWT against the same with a static token, on one gateway: the
// verification is cached per token, so a JWT must cost (almost) nothing more than a static token.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { startServer } from './support.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const STATIC_TOKEN = 'bench-static-token-0123456789abcdef';

/** Options of oauthBench: where the skills are, how long each round runs, and the report's row writer. */
export interface OAuthBenchOptions {
  readonly root: string;
  readonly seconds: number;
  readonly row: (
    group: string,
    metric: string,
    value: string,
    reference: string,
    ratio: string,
    target: string,
    pass?: boolean,
  ) => void;
  readonly fmt: (n: number, digits?: number) => string;
}

async function listLoad(url: string, authorization: string, seconds: number): Promise<number> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: META } });
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/list',
    authorization,
  };
  const probe = await fetch(`${url}/mcp`, { method: 'POST', headers, body });
  const answer = await probe.text();
  if (!probe.ok || answer.includes('"error"'))
    throw new Error(`tools/list: ${probe.status} ${answer.slice(0, 300)}`);
  const result = await autocannon({
    url: `${url}/mcp`,
    method: 'POST',
    connections: 50,
    duration: seconds,
    body,
    headers,
  });
  if (result.non2xx + result.errors > 0)
    throw new Error(`tools/list: ${result.non2xx + result.errors} errors`);
  return result.requests.average;
}

/** Runs the comparison (two alternating rounds, the better of each) and writes its row. */
export async function oauthBench(options: OAuthBenchOptions): Promise<{ jwt: number; static: number }> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'RS256', use: 'sig' };
  const idp = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
  const gateway = await startServer('gateway-oauth', options.root, 'namespaced', 'auto', {
    BENCH_OAUTH_ISSUER: issuer,
    BENCH_STATIC_TOKEN: STATIC_TOKEN,
  });
  try {
    const jwt = await new SignJWT({ scope: 'mcp skills:all' })
      .setProtectedHeader({ alg: 'RS256', kid: 'bench' })
      .setIssuer(issuer)
      .setAudience('skillgate-bench')
      .setSubject('bench-agent')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    let bestJwt = 0;
    let bestStatic = 0;
    for (let round = 0; round < 2; round++) {
      bestStatic = Math.max(
        bestStatic,
        await listLoad(gateway.url, `Bearer ${STATIC_TOKEN}`, options.seconds),
      );
      bestJwt = Math.max(bestJwt, await listLoad(gateway.url, `Bearer ${jwt}`, options.seconds));
    }
    options.row(
      'oauth',
      'modern tools/list req/s with a JWT vs a static token',
      options.fmt(bestJwt),
      `static token ${options.fmt(bestStatic)}`,
      `${options.fmt((bestJwt / bestStatic) * 100, 0)}%`,
      '>= 90%',
      bestJwt >= 0.9 * bestStatic,
    );
    return { jwt: bestJwt, static: bestStatic };
  } finally {
    await gateway.stop();
    idp.close();
  }
}
