import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, configReference, loadConfig, parseConfig } from '../src/index.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

const issuesOf = (fn: () => unknown): Array<{ path: string; message: string }> => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe('CONFIG_INVALID');
    return [...(error as ConfigError).issues];
  }
  throw new Error('expected a ConfigError');
};

describe('parseConfig', () => {
  it('fills every documented default', () => {
    const c = parseConfig(undefined, { baseDir: '/srv' });
    expect(c.server).toEqual({
      host: '127.0.0.1',
      port: 3000,
      path: '/mcp',
      allowed_origins: [],
      body_limit_bytes: 1_048_576,
      shutdown_grace_seconds: 10,
      trust_proxy: false,
      transport: 'native',
    });
    expect(c.skills).toMatchObject({
      roots: ['/srv/examples/skills'],
      validation: 'lenient',
      disclosure: 'namespaced',
    });
    expect(c.skills.async_enabled).toBe(false);
    expect(c.tools.max_name_length).toBe(48);
    expect(c.scripts).toMatchObject({
      default_timeout: 30,
      max_timeout: 300,
      max_output_bytes: 1_048_576,
      default_tail: 200,
    });
    expect(c.scripts.max_concurrent).toBe(4);
    expect(c.scripts.env_passthrough).toEqual(['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ']);
    expect(c.scripts.interpreters['.py']).toEqual(['python3']);
    expect(c.scripts.interpreters['.mjs']).toEqual(['node']);
    expect(c.jobs).toEqual({ ttl_seconds: 3600, max_per_session: 16 });
    expect(c.sessions).toMatchObject({ ttl_seconds: 3600, max_sessions: 10_000, scope: 'session' });
    expect(c.auth).toEqual({ tokens: [], allow_anonymous: false, anonymous_skills: ['*'] });
    expect(c.clients).toEqual([]);
  });

  it('refuses unknown keys at every level, naming each', () => {
    const issues = issuesOf(() =>
      parseConfig(
        { nope: 1, server: { prot: 1 }, auth: { tokens: [{ name: 'a', token_env: 'A', x: 1 }] } },
        { baseDir: '/' },
      ),
    );
    const paths = issues.map((i) => i.path);
    expect(paths).toContain('nope');
    expect(paths).toContain('server.prot');
    expect(paths).toContain('auth.tokens[0].x');
  });

  it('reports wrong types and out-of-range values with their key path, all at once', () => {
    const issues = issuesOf(() =>
      parseConfig(
        {
          server: { port: 'http' },
          tools: { max_name_length: 80 },
          skills: { disclosure: 'lazy', roots: [] },
          scripts: { max_concurrent: 0 },
        },
        { baseDir: '/' },
      ),
    );
    expect(issues.map((i) => i.path).sort()).toEqual([
      'scripts.max_concurrent',
      'server.port',
      'skills.disclosure',
      'skills.roots',
      'tools.max_name_length',
    ]);
  });

  it('checks fields against each other', () => {
    expect(
      issuesOf(() => parseConfig({ scripts: { default_timeout: 60, max_timeout: 30 } }, { baseDir: '/' }))[0]
        ?.path,
    ).toBe('scripts.default_timeout');
    expect(
      issuesOf(() =>
        parseConfig(
          {
            auth: {
              tokens: [
                { name: 'a', token_env: 'A' },
                { name: 'a', token_env: 'B' },
              ],
            },
          },
          { baseDir: '/' },
        ),
      )[0]?.path,
    ).toBe('auth.tokens[1].name');
    expect(
      issuesOf(() => parseConfig({ auth: { tokens: [{ name: 'a' }] } }, { baseDir: '/' }))[0]?.path,
    ).toBe('auth.tokens[0]');
    expect(
      issuesOf(() => parseConfig({ clients: [{ match: {}, disclosure: 'eager' }] }, { baseDir: '/' }))[0]
        ?.path,
    ).toBe('clients[0].match');
  });

  it('returns a deeply frozen config', () => {
    const c = parseConfig({}, { baseDir: '/' });
    expect(() => {
      (c.server as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(() => {
      (c.skills.roots as string[]).push('/x');
    }).toThrow(TypeError);
  });
});

describe('loadConfig', () => {
  it('reads every key from YAML and resolves relative roots against the file folder', async () => {
    const { config, file } = await loadConfig({ file: join(fixtures, 'full.yaml'), env: {} });
    expect(file).toBe(join(fixtures, 'full.yaml'));
    expect(config.skills.roots).toEqual([join(fixtures, 'skills-a'), '/abs/skills-b']);
    expect(config.server).toMatchObject({
      host: '0.0.0.0',
      port: 8080,
      path: '/gateway/mcp',
      trust_proxy: true,
    });
    expect(config.scripts.interpreters).toEqual({ '.py': ['python3', '-I'], '.rb': ['ruby'] });
    expect(config.sessions.scope).toBe('principal');
    expect(config.auth.tokens[0]).toEqual({ name: 'agent-a', token_env: 'AGENT_A_TOKEN', skills: ['pdf-*'] });
    expect(config.auth.tokens[1]?.skills).toEqual(['*']);
    expect(config.clients[0]).toEqual({ match: { name: 'Claude Desktop*' }, disclosure: 'universal' });
    expect(config.logging).toEqual({ level: 'debug', log_arguments: true });
  });

  it('uses SKILLGATE_CONFIG, then env overrides, then CLI overrides', async () => {
    const env = {
      SKILLGATE_CONFIG: join(fixtures, 'full.yaml'),
      SKILLGATE_PORT: '9000',
      SKILLGATE_HOST: '127.0.0.2',
      SKILLGATE_LOG_LEVEL: 'warn',
    };
    const fromEnv = await loadConfig({ env });
    expect(fromEnv.config.server).toMatchObject({ port: 9000, host: '127.0.0.2' });
    expect(fromEnv.config.logging.level).toBe('warn');
    const fromFlags = await loadConfig({ env, overrides: { port: 9100 } });
    expect(fromFlags.config.server.port).toBe(9100);
  });

  it('uses defaults relative to the cwd without a file', async () => {
    const { config, file } = await loadConfig({ env: {} });
    expect(file).toBeUndefined();
    expect(config.skills.roots).toEqual([join(process.cwd(), 'examples/skills')]);
  });

  it('names the failure: missing file, YAML syntax, unknown keys, bad SKILLGATE_PORT', async () => {
    await expect(loadConfig({ file: join(fixtures, 'missing.yaml'), env: {} })).rejects.toMatchObject({
      code: 'CONFIG_NOT_FOUND',
    });
    const yaml = await loadConfig({ file: join(fixtures, 'bad-yaml.yaml'), env: {} }).catch(
      (e: unknown) => e,
    );
    expect(yaml).toMatchObject({ code: 'CONFIG_YAML' });
    expect((yaml as ConfigError).issues[0]?.path).toMatch(/^line \d+, column \d+$/);
    const unknown = await loadConfig({ file: join(fixtures, 'unknown-keys.yaml'), env: {} }).catch(
      (e: unknown) => e,
    );
    expect((unknown as ConfigError).issues.map((i) => i.path).sort()).toEqual(['server.prot', 'skils']);
    await expect(loadConfig({ env: { SKILLGATE_PORT: 'eighty' } })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      issues: [{ path: 'SKILLGATE_PORT' }],
    });
  });
});

describe('configReference', () => {
  it('documents every leaf key of the defaults with a description', () => {
    const rows = new Map(configReference().map((r) => [r.key, r]));
    const defaults = parseConfig({}, { baseDir: '/' }) as unknown as Record<string, unknown>;
    for (const [section, value] of Object.entries(defaults)) {
      const keys = Array.isArray(value)
        ? [section]
        : Object.keys(value as object).map((k) => `${section}.${k}`);
      for (const key of keys) {
        expect(rows.get(key)?.description, key).toMatch(/\w/);
        expect(rows.get(key)?.default, key).toBeDefined();
      }
    }
    expect(rows.get('scripts.max_timeout')?.default).toBe('300');
  });
});
