import { describe, expect, it } from 'vitest';
import { assertSafeBinding, ConfigError, parseConfig } from '../src/index.js';

const base = { baseDir: '/srv/gateway' };

const issuesOf = (input: unknown): readonly { path: string; message: string }[] => {
  try {
    parseConfig(input, base);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues;
  }
  throw new Error('expected a ConfigError');
};

describe('auth.oauth', () => {
  it('gives its documented defaults and keeps the grants as written', () => {
    const config = parseConfig(
      {
        server: { public_url: 'https://mcp.example.com' },
        auth: {
          oauth: {
            issuer: 'https://idp.example.com/realms/agents',
            grants: [
              { scope: 'skills:text', skills: ['text-*'] },
              { claim: { name: 'groups', value: 'ops' }, skills: ['*'] },
            ],
          },
        },
      },
      base,
    );
    expect(config.auth.oauth).toEqual({
      issuer: 'https://idp.example.com/realms/agents',
      principal_claim: 'sub',
      failed_attempts_per_minute: 20,
      scopes_supported: [],
      required_scopes: [],
      grants: [
        { scope: 'skills:text', skills: ['text-*'] },
        { claim: { name: 'groups', value: 'ops' }, skills: ['*'] },
      ],
    });
    expect(config.server.public_url).toBe('https://mcp.example.com');
  });

  it('is absent unless configured', () => {
    expect(parseConfig({}, base).auth.oauth).toBeUndefined();
  });

  it('needs server.public_url when the audience is not given', () => {
    const issues = issuesOf({ auth: { oauth: { issuer: 'https://idp.example.com' } } });
    expect(issues.map((i) => i.path)).toEqual(['server.public_url']);
    expect(
      parseConfig({ auth: { oauth: { issuer: 'https://idp.example.com', audience: 'skillgate' } } }, base)
        .auth.oauth?.audience,
    ).toBe('skillgate');
  });

  it('refuses a public_url with a path, and metadata or keys over plain http off loopback', () => {
    const issues = issuesOf({
      server: { public_url: 'https://mcp.example.com/mcp' },
      auth: {
        oauth: {
          issuer: 'http://idp.example.com',
          jwks_uri: 'https://user:pw@idp.example.com/keys',
          introspection: {
            endpoint: 'http://10.0.0.1/introspect',
            client_id_env: 'ID',
            client_secret_env: 'S',
          },
        },
      },
    });
    expect(issues.map((i) => i.path).sort()).toEqual([
      'auth.oauth.introspection.endpoint',
      'auth.oauth.issuer',
      'auth.oauth.jwks_uri',
      'server.public_url',
    ]);
    // A loopback IdP over http is fine (a sidecar, or the tests).
    expect(
      parseConfig(
        {
          server: { public_url: 'http://127.0.0.1:3000' },
          auth: { oauth: { issuer: 'http://127.0.0.1:9000' } },
        },
        base,
      ).auth.oauth?.issuer,
    ).toBe('http://127.0.0.1:9000');
  });

  it('refuses a grant that is neither a scope nor a claim, and scopes with spaces', () => {
    const issues = issuesOf({
      server: { public_url: 'https://mcp.example.com' },
      auth: {
        oauth: {
          issuer: 'https://idp.example.com',
          required_scopes: ['two words'],
          grants: [{ skills: ['*'] }, { scope: 'a', claim: { name: 'x', value: 'y' }, skills: ['*'] }],
        },
      },
    });
    expect(issues.map((i) => i.path)).toEqual([
      'auth.oauth.required_scopes[0]',
      'auth.oauth.grants[0]',
      'auth.oauth.grants[1]',
    ]);
  });

  it('counts as authentication for a non-loopback bind', () => {
    const config = parseConfig(
      {
        server: { host: '0.0.0.0', public_url: 'https://mcp.example.com' },
        auth: { oauth: { issuer: 'https://idp.example.com' } },
      },
      base,
    );
    expect(() => assertSafeBinding(config, [])).not.toThrow();
    expect(() => assertSafeBinding(parseConfig({ server: { host: '0.0.0.0' } }, base), [])).toThrow(
      ConfigError,
    );
  });
});
