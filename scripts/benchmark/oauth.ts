// tools/list (2026-07-28) with an OAuth JWT against the same with a static token, on one gateway: the
// verification is cached per token, so a JWT must cost (almost) nothing more than a static token.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { BenchContext } from './context.js';
import { startServer } from './support.js';
import { TARGETS } from './targets.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const STATIC_TOKEN = 'bench-static-token-0123456789abcdef';

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

/** The oauth phase: the comparison (two alternating rounds, the better of each) and its row. */
export async function oauthPhase(context: BenchContext): Promise<void> {
  context.result('oauth', await oauthBench(context, await context.skills(100), context.quick ? 2 : 5));
}

async function oauthBench(
  options: BenchContext,
  root: string,
  seconds: number,
): Promise<{ jwt: number; static: number }> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'RS256', use: 'sig' };
  const idp = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
  const gateway = await startServer('gateway-oauth', root, 'namespaced', 'auto', {
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
      bestStatic = Math.max(bestStatic, await listLoad(gateway.url, `Bearer ${STATIC_TOKEN}`, seconds));
      bestJwt = Math.max(bestJwt, await listLoad(gateway.url, `Bearer ${jwt}`, seconds));
    }
    options.row(
      'oauth',
      'modern tools/list req/s with a JWT vs a static token',
      options.fmt(bestJwt),
      `static token ${options.fmt(bestStatic)}`,
      `${options.fmt((bestJwt / bestStatic) * 100, 0)}%`,
      TARGETS.jwtVsStatic,
      bestJwt / bestStatic,
    );
    return { jwt: bestJwt, static: bestStatic };
  } finally {
    await gateway.stop();
    idp.close();
  }
}
