import { parseConfig } from '@skillgate/config';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.js';
import { messagesOf, openSession, post } from '../helpers/rawHttp.js';
import { EXAMPLES_ROOT, REPO_ROOT, startTestGateway } from '../helpers/testGateway.js';

// Attack (issue 17, item 2): with `allow_anonymous: true`, a token named `anonymous` made every caller without a
// token that token's principal — its skills, its sessions, its cached lists.
const TOKEN = 'token-named-anonymous-0123456789';

describe('a token named like the anonymous principal', () => {
  it.each(['anonymous', 'Anonymous', 'anon'])('is refused in config (%s)', async (name) => {
    await expect(
      startTestGateway({
        auth: { allow_anonymous: true, tokens: [{ name, token_env: 'T', skills: ['*'] }] },
      }),
    ).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      issues: [
        expect.objectContaining({
          path: 'auth.tokens[0].name',
          message: expect.stringContaining('reserved'),
        }),
      ],
    });
  });
});

describe('principals are keyed by an identity no token name can take', () => {
  // The config refuses the name, so the gateway is built from a config edited after validation: this checks the
  // second line of defence, every per-principal key, on the real gateway over HTTP.
  let gateway: Gateway;
  let url: URL;
  beforeAll(async () => {
    const valid = parseConfig(
      {
        skills: { roots: [EXAMPLES_ROOT] },
        auth: {
          allow_anonymous: true,
          anonymous_skills: ['text-stats'],
          tokens: [{ name: 'placeholder', token_env: 'T', skills: ['log-*'] }],
        },
      },
      { baseDir: REPO_ROOT },
    );
    const [token] = valid.auth.tokens;
    if (token === undefined) throw new Error('fixture config lost its token');
    const config = { ...valid, auth: { ...valid.auth, tokens: [{ ...token, name: 'anonymous' }] } };
    gateway = await createGateway(config, {
      env: { ...process.env, T: TOKEN },
      logger: pino({ level: 'silent' }) as FastifyBaseLogger,
    });
    url = new URL(config.server.path, await gateway.app.listen({ host: '127.0.0.1', port: 0 }));
  });
  afterAll(async () => {
    await gateway.close();
  });

  const listTools = async (session: string, headers: Record<string, string>) => {
    const response = await post(
      url,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { 'mcp-session-id': session, ...headers },
    );
    return { status: response.status, messages: await messagesOf(response) };
  };
  const toolNamesOf = (messages: Array<Record<string, unknown>>) =>
    ((messages[0]?.result as { tools?: Array<{ name: string }> } | undefined)?.tools ?? [])
      .map((t) => t.name)
      .sort();

  it("a caller without a token neither sees the token's skills nor uses its session", async () => {
    const bearer = { authorization: `Bearer ${TOKEN}` };
    const tokenSession = await openSession(url, bearer);
    const asToken = await listTools(tokenSession, bearer);
    expect(asToken.status).toBe(200);
    expect(toolNamesOf(asToken.messages).every((name) => name.startsWith('skill_log-'))).toBe(true);

    // The token's session, presented without the token: unknown, exactly like any other principal's session.
    const hijack = await listTools(tokenSession, {});
    expect(hijack.status).toBe(404);

    const anonymousSession = await openSession(url);
    const asAnonymous = await listTools(anonymousSession, {});
    expect(toolNamesOf(asAnonymous.messages)).toEqual(['skill_text-stats_get_info']);
  });
});
