import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/index.js';

const base = { baseDir: '/srv/gateway' };

const issuesOf = (input: unknown): readonly { path: string; message: string }[] => {
  try {
    parseConfig(input, base);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe('CONFIG_INVALID');
    return (error as ConfigError).issues;
  }
  throw new Error('expected a ConfigError');
};

const github = {
  id: 'github',
  oauth: {
    authorization_endpoint: 'https://github.com/login/oauth/authorize',
    token_endpoint: 'https://github.com/login/oauth/access_token',
    client_id_env: 'GH_CLIENT_ID',
    client_secret_env: 'GH_CLIENT_SECRET',
    scopes: ['repo'],
  },
};
const exchange = {
  token_endpoint: 'https://idp.example.com/token',
  client_id_env: 'X_ID',
  client_secret_env: 'X_SECRET',
};
// A config with everything per-principal needs: keys, an origin for connect links.
const working = {
  server: { public_url: 'https://mcp.example.com' },
  credentials: { keys: [{ id: 'k1', env: 'SKILLGATE_CREDENTIALS_KEY' }], providers: [github] },
};

describe('credentials', () => {
  it('parses the full example of docs/credentials.md with its defaults', () => {
    const config = parseConfig(
      {
        ...working,
        credentials: {
          ...working.credentials,
          providers: [github, { id: 'acme', secret: { label: 'ACME API key' } }],
        },
        upstreams: [
          { id: 'github', url: 'https://mcp.github.example/mcp', auth: { provider: 'github' } },
          {
            id: 'search',
            url: 'https://search.internal/mcp',
            auth: { token_exchange: { ...exchange, scopes: ['search.read'], static_principals: 'deny' } },
          },
          { id: 'reports', url: 'https://reports.internal/mcp', auth: { client_credentials: exchange } },
          { id: 'acme', url: 'https://acme.example/mcp', auth: { provider: 'acme', header: 'X-API-Key' } },
        ],
        scripts: { credentials: [{ skills: ['gh-*'], env: 'GITHUB_TOKEN', provider: 'github' }] },
      },
      base,
    );
    expect(config.credentials.store).toBe('auto');
    expect(config.credentials.providers[0]?.oauth?.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(config.upstreams[1]?.auth?.token_exchange).toEqual({
      ...exchange,
      scopes: ['search.read'],
      send_resource: true,
      static_principals: 'deny',
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(config.scripts.credentials).toEqual([
      { skills: ['gh-*'], env: 'GITHUB_TOKEN', provider: 'github' },
    ]);
  });

  it('refuses providers without a key, naming credentials.keys', () => {
    const issues = issuesOf({ ...working, credentials: { providers: [github] } });
    expect(issues).toEqual([
      { path: 'credentials.keys', message: expect.stringContaining('credentials.keys') },
    ]);
  });

  it('refuses a provider reference that does not exist, for upstreams and scripts', () => {
    const issues = issuesOf({
      ...working,
      upstreams: [{ id: 'gl', url: 'https://gl.example/mcp', auth: { provider: 'gitlab' } }],
      scripts: { credentials: [{ skills: ['*'], env: 'GL_TOKEN', provider: 'gitlab' }] },
    });
    expect(issues.map((i) => i.path)).toEqual([
      'upstreams[0].auth.provider',
      'scripts.credentials[0].provider',
    ]);
    expect(issues[0]?.message).toBe('no provider "gitlab" in credentials.providers');
  });

  it.each([
    ['http://idp.example.com/token', 'an http token endpoint off loopback'],
    ['https://user:pw@idp.example.com/token', 'credentials in the URL'],
    ['ftp://idp.example.com/token', 'another scheme'],
  ])('refuses %s (%s) as a token endpoint', (endpoint) => {
    const issues = issuesOf({
      upstreams: [
        {
          id: 'r',
          url: 'https://r.example/mcp',
          auth: { client_credentials: { ...exchange, token_endpoint: endpoint } },
        },
      ],
    });
    expect(issues.map((i) => i.path)).toEqual(['upstreams[0].auth.client_credentials.token_endpoint']);
  });

  it('allows loopback http for token endpoints and issuers (tests, sidecars)', () => {
    const config = parseConfig(
      {
        ...working,
        credentials: {
          ...working.credentials,
          providers: [
            {
              id: 'local',
              oauth: { issuer: 'http://127.0.0.1:9000', client_id_env: 'A', client_secret_env: 'B' },
            },
          ],
        },
        upstreams: [
          {
            id: 'r',
            url: 'http://127.0.0.1:9100/mcp',
            auth: { token_exchange: { ...exchange, token_endpoint: 'http://localhost:9000/token' } },
          },
        ],
      },
      base,
    );
    expect(config.credentials.providers[0]?.oauth?.issuer).toBe('http://127.0.0.1:9000');
  });

  it('refuses an http issuer off loopback and a provider with both an issuer and endpoints', () => {
    const issues = issuesOf({
      ...working,
      credentials: {
        ...working.credentials,
        providers: [
          {
            id: 'a',
            oauth: { issuer: 'http://idp.example.com', client_id_env: 'A', client_secret_env: 'B' },
          },
          { id: 'b', oauth: { ...github.oauth, issuer: 'https://idp.example.com' } },
          { id: 'c', oauth: { client_id_env: 'A', client_secret_env: 'B' } },
          { id: 'd', secret: { label: 'x' }, oauth: github.oauth },
        ],
      },
    });
    expect(issues.map((i) => i.path)).toEqual([
      'credentials.providers[0].oauth.issuer',
      'credentials.providers[1].oauth.issuer',
      'credentials.providers[2].oauth.authorization_endpoint',
      'credentials.providers[2].oauth.token_endpoint',
      'credentials.providers[3]',
    ]);
  });

  it('refuses auth on a stdio upstream, two modes at once, and a header without provider', () => {
    const issues = issuesOf({
      ...working,
      upstreams: [
        { id: 'a', command: ['node', 's.js'], auth: { provider: 'github' } },
        { id: 'b', url: 'https://b.example/mcp', auth: { provider: 'github', client_credentials: exchange } },
        { id: 'c', url: 'https://c.example/mcp', auth: { client_credentials: exchange, header: 'X-Key' } },
        { id: 'd', url: 'https://d.example/mcp', auth: {} },
      ],
    });
    expect(issues).toEqual([
      { path: 'upstreams[0].auth', message: 'only applies to url upstreams' },
      {
        path: 'upstreams[1].auth',
        message: 'give exactly one of provider, token_exchange and client_credentials',
      },
      { path: 'upstreams[2].auth.header', message: 'only applies with provider' },
      {
        path: 'upstreams[3].auth',
        message: 'give exactly one of provider, token_exchange and client_credentials',
      },
    ]);
  });

  it('refuses a configured header that auth sets too', () => {
    const issues = issuesOf({
      ...working,
      upstreams: [
        {
          id: 'a',
          url: 'https://a.example/mcp',
          headers_from_env: { authorization: 'STATIC' },
          auth: { provider: 'github' },
        },
      ],
    });
    expect(issues.map((i) => i.path)).toEqual(['upstreams[0].headers_from_env.authorization']);
  });

  it('refuses discovery with both or neither way, and with client_credentials', () => {
    const issues = issuesOf({
      ...working,
      upstreams: [
        { id: 'a', url: 'https://a.example/mcp', auth: { provider: 'github', discovery: {} } },
        {
          id: 'b',
          url: 'https://b.example/mcp',
          auth: { client_credentials: exchange, discovery: { client_credentials: exchange } },
        },
      ],
    });
    expect(issues.map((i) => i.path)).toEqual(['upstreams[0].auth.discovery', 'upstreams[1].auth.discovery']);
  });

  it('refuses the redis store without a redis state backend, and providers without a public URL', () => {
    const issues = issuesOf({
      credentials: { ...working.credentials, store: 'redis' },
    });
    expect(issues.map((i) => i.path)).toEqual(['credentials.store', 'credentials.connect.public_url']);
  });

  it('requires connect.login with auth.oauth, so OAuth principals can prove who they are', () => {
    const issues = issuesOf({ ...working, auth: { oauth: { issuer: 'https://idp.example.com' } } });
    expect(issues.map((i) => i.path)).toEqual(['credentials.connect.login']);
  });

  it('refuses a script credential variable the scripts already get, and duplicate ids', () => {
    const issues = issuesOf({
      ...working,
      credentials: {
        keys: [
          { id: 'k1', env: 'A' },
          { id: 'k1', file: '/k' },
        ],
        providers: [github, github],
      },
      scripts: { credentials: [{ skills: ['*'], env: 'PATH', provider: 'github' }] },
    });
    expect(issues.map((i) => i.path)).toEqual([
      'scripts.credentials[0].env',
      'credentials.providers[1].id',
      'credentials.keys[1].id',
    ]);
  });

  it('refuses a key with both or neither of env and file', () => {
    const issues = issuesOf({
      credentials: { keys: [{ id: 'k1' }, { id: 'k2', env: 'A', file: '/k' }] },
    });
    expect(issues.map((i) => i.path)).toEqual(['credentials.keys[0]', 'credentials.keys[1]']);
  });
});
