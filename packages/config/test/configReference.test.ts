import { describe, expect, it } from 'vitest';
import { configReference, configSchema, parseConfig } from '../src/index.js';

const rows = new Map(configReference().map((row) => [row.key, row]));

// Walks a parsed config: a node with a row is a documented leaf; any other node must be a
// section (plain object) to descend into, so a new key without a row fails here.
function undocumented(node: unknown, path: string): string[] {
  if (path !== '' && rows.has(path)) return [];
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return [path];
  return Object.entries(node).flatMap(([key, child]) =>
    undocumented(child, path === '' ? key : `${path}.${key}`),
  );
}

describe('configReference', () => {
  it('has a row for every leaf key of the default config', () => {
    expect(undocumented(parseConfig(undefined, { baseDir: '/' }), '')).toEqual([]);
  });

  it('has a row for every key of a config with every list filled in', () => {
    const full = parseConfig(
      {
        auth: { tokens: [{ name: 'a', token_env: 'A' }] },
        clients: [{ match: { name: 'x' }, disclosure: 'eager' }],
      },
      { baseDir: '/' },
    );
    expect(undocumented(full, '')).toEqual([]);
  });

  it('gives every row a one-line description and the default as JSON', () => {
    const defaults = configSchema.parse({});
    // The keys of an optional section have defaults once the section is given.
    const withOAuth = configSchema.parse({
      auth: { oauth: { issuer: 'https://idp.example.com', audience: 'a' } },
    });
    for (const row of rows.values()) {
      expect(row.description, row.key).toMatch(/\w/);
      expect(row.description, row.key).not.toContain('\n');
      const value = row.key
        .split('.')
        .reduce<unknown>(
          (node, part) => (node as Record<string, unknown>)?.[part],
          row.key.startsWith('auth.oauth.') ? withOAuth : defaults,
        );
      // A key without a default (server.public_url, the auth.oauth section) is documented with none.
      if (row.default === '')
        expect(row.key.startsWith('auth.oauth.') ? undefined : value, row.key).toBeUndefined();
      else expect(JSON.parse(row.default), row.key).toEqual(value);
    }
  });

  it('has no row for a key that does not exist, and no duplicates', () => {
    const keys = configReference().map((row) => row.key);
    expect(new Set(keys).size).toBe(keys.length);
    // Optional keys exist once set: every one is set here.
    const defaults = parseConfig(
      {
        server: { public_url: 'https://mcp.example.com' },
        sources: { cache_dir: '/cache' },
        scripts: { max_concurrent_per_principal: 1 },
        credentials: {
          file: '/state/credentials.json',
          connect: {
            public_url: 'https://mcp.example.com',
            login: { client_id_env: 'C', client_secret_env: 'S' },
          },
        },
        observability: { tracing: { endpoint: 'http://collector:4318/v1/traces' } },
        auth: {
          oauth: {
            issuer: 'https://idp.example.com',
            audience: 'skillgate',
            jwks_uri: 'https://idp.example.com/keys',
            introspection: {
              endpoint: 'https://idp.example.com/i',
              client_id_env: 'I',
              client_secret_env: 'S',
            },
          },
        },
      },
      { baseDir: '/' },
    );
    for (const key of keys) {
      const value = key
        .split('.')
        .reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], defaults);
      expect(value, key).toBeDefined();
    }
  });

  it('shows documented defaults as written, with spot checks', () => {
    expect(rows.get('scripts.max_timeout_seconds')?.default).toBe('300');
    expect(rows.get('server.host')?.default).toBe('"127.0.0.1"');
    expect(rows.get('skills.roots')?.default).toBe('[]');
    expect(rows.get('auth.tokens')?.default).toBe('[]');
    expect(rows.get('clients')?.default).toContain('"codex-mcp-client"');
    expect(JSON.parse(rows.get('scripts.interpreters')?.default ?? 'null')).toMatchObject({
      '.py': ['python3'],
    });
  });
});
