import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigError, configReference, loadConfig, parseConfig } from '../src/index.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const fixture = (name: string): string => join(fixtures, name);

// Awaits a rejection and returns the ConfigError.
async function failure(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('loadConfig from a file', () => {
  it('reads every key of a full YAML file', async () => {
    const { config, file } = await loadConfig({ file: fixture('full.yaml'), env: {} });
    expect(file).toBe(fixture('full.yaml'));
    expect(config).toEqual({
      server: {
        host: '0.0.0.0',
        port: 8080,
        path: '/gateway/mcp',
        allowed_origins: ['https://app.example.com', 'http://localhost:5173'],
        body_limit_bytes: 2048,
        max_batch_size: 4,
        max_response_bytes: 131_072,
        max_client_string_chars: 512,
        max_json_depth: 32,
        max_json_keys: 2000,
        max_listen_streams: 512,
        max_listen_streams_per_principal: 8,
        shutdown_grace_seconds: 3,
        trust_proxy: true,
        headers_timeout_seconds: 5,
        request_timeout_seconds: 20,
        keep_alive_timeout_seconds: 65,
        send_timeout_seconds: 45,
        max_connections: 500,
        max_connections_per_address: 32,
        public_url: 'https://mcp.example.com:8443',
      },
      skills: {
        roots: [fixture('skills-a'), '/abs/skills-b'],
        validation: 'strict',
        disclosure: 'eager',
        modern_disclosure: 'universal',
        pinned: ['csv-*'],
        async_enabled: true,
        prompts: true,
        watch: true,
        watch_debounce_ms: 50,
        max_skill_md_bytes: 65_536,
        max_file_bytes: 1_048_576,
        max_description_chars: 512,
        max_instructions_chars: 8192,
        allow_missing_roots: true,
      },
      sources: {
        list: [
          {
            id: 'company',
            git: 'https://git.example.com/org/skills.git',
            ref: 'v3',
            path: 'skills',
            skills: ['pdf-*'],
            token_env: 'GIT_TOKEN',
          },
          { id: 'vendor', archive: 'https://downloads.example.com/v.tar.gz', sha256: 'a'.repeat(64) },
        ],
        lock_file: fixture('locks/skillgate.lock.yaml'),
        cache_dir: '/var/cache/skillgate',
        fetch_timeout_seconds: 30,
        max_bytes: 1_048_576,
        max_files: 500,
        follow: { interval_seconds: 60 },
      },
      tools: { max_name_length: 60, max_listed: 50, list_ttl_ms: 5000 },
      scripts: {
        default_timeout_seconds: 5,
        max_timeout_seconds: 10,
        max_output_bytes: 4096,
        default_tail: 10,
        max_concurrent: 8,
        max_concurrent_per_principal: 3,
        max_queue: 0,
        queue_timeout_seconds: 2,
        max_stdin_bytes: 100,
        max_args: 4,
        max_arg_bytes: 64,
        kill_grace_ms: 100,
        env_passthrough: ['PATH'],
        interpreters: { '.py': ['python3', '-I'], '.rb': ['ruby'] },
        sandbox: 'bwrap',
        network: true,
        limits: { memory_mb: 256, processes: 16, file_bytes: 1_048_576, cpu_seconds: 7 },
        credentials: [{ skills: ['gh-*'], env: 'GITHUB_TOKEN', provider: 'github' }],
      },
      resources: { max_text_bytes: 2048, max_binary_bytes: 4096 },
      jobs: { ttl_seconds: 60, max_per_session: 2 },
      sessions: {
        ttl_seconds: 120,
        max_sessions: 50,
        max_per_principal: 5,
        relist_wait_ms: 500,
        relist_grace_ms: 20,
        scope: 'principal',
      },
      auth: {
        tokens: [
          { name: 'agent-a', token_env: 'AGENT_A_TOKEN', skills: ['pdf-*'], admin: false },
          {
            name: 'agent-b',
            token_sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
            skills: ['*'],
            admin: true,
          },
        ],
        allow_anonymous: true,
        anonymous_skills: ['public-*'],
        oauth: {
          issuer: 'https://idp.example.com/realms/agents',
          audience: 'https://mcp.example.com:8443/gateway/mcp',
          jwks_uri: 'https://idp.example.com/realms/agents/certs',
          principal_claim: 'azp',
          failed_attempts_per_minute: 7,
          scopes_supported: ['mcp', 'skills:pdf'],
          required_scopes: ['mcp'],
          grants: [
            { scope: 'skills:pdf', skills: ['pdf-*'] },
            { claim: { name: 'groups', value: 'ops' }, skills: ['*'] },
          ],
          introspection: {
            endpoint: 'https://idp.example.com/introspect',
            client_id_env: 'GW_CLIENT_ID',
            client_secret_env: 'GW_CLIENT_SECRET',
          },
        },
      },
      rate_limit: { requests_per_second: 0, burst: 10, bytes_per_request: 4096 },
      state: { backend: 'redis', redis_url_env: 'TEAM_REDIS_URL', key_prefix: 'team-a:' },
      clients: [
        { match: { name: 'Claude Desktop*' }, disclosure: 'universal' },
        { match: { name: 'Codex*', principal: 'agent-*' }, disclosure: 'eager' },
      ],
      upstreams: [
        {
          id: 'github',
          url: 'https://mcp.example.com/mcp',
          headers_from_env: { 'X-Tenant': 'GITHUB_TENANT' },
          auth: { provider: 'github', discovery: { headers_from_env: { Authorization: 'GITHUB_MCP_AUTH' } } },
          description: 'GitHub issues and pull requests.',
          skill: 'none',
          tools: ['issue_*'],
          timeout_seconds: 5,
          max_concurrent: 2,
          max_concurrent_per_principal: 1,
          max_result_bytes: 4096,
          max_tools: 256,
          max_tool_schema_bytes: 16_384,
          max_tool_description_bytes: 4096,
        },
        {
          id: 'files',
          command: ['node', 'server.js', '/srv/data'],
          env_from: { API_KEY: 'FILES_API_KEY' },
          sandbox: { network: true, read: ['/opt/models'], write: ['/srv/data'] },
          skill: 'auto',
          tools: ['*'],
          timeout_seconds: 60,
          max_concurrent: 8,
          max_result_bytes: 1_048_576,
          max_tools: 256,
          max_tool_schema_bytes: 16_384,
          max_tool_description_bytes: 4096,
        },
      ],
      credentials: {
        store: 'redis',
        file: '/var/lib/skillgate/credentials.json',
        keys: [
          { id: 'k2', env: 'SKILLGATE_CREDENTIALS_KEY' },
          { id: 'k1', file: '/run/secrets/skillgate-k1' },
        ],
        connect: {
          public_url: 'https://connect.example.com',
          login: {
            client_id_env: 'SKILLGATE_CONNECT_CLIENT_ID',
            client_secret_env: 'SKILLGATE_CONNECT_CLIENT_SECRET',
          },
        },
        providers: [
          {
            id: 'github',
            oauth: {
              authorization_endpoint: 'https://github.com/login/oauth/authorize',
              token_endpoint: 'https://github.com/login/oauth/access_token',
              client_id_env: 'GH_CLIENT_ID',
              client_secret_env: 'GH_CLIENT_SECRET',
              scopes: ['repo'],
              token_endpoint_auth_method: 'client_secret_basic',
            },
          },
          { id: 'acme', secret: { label: 'ACME API key' } },
        ],
      },
      logging: { level: 'debug', format: 'pretty', log_arguments: true },
      observability: {
        tracing: {
          endpoint: 'https://collector.example.com:4318/v1/traces',
          protocol: 'http/json',
          headers_from_env: { Authorization: 'OTEL_AUTH' },
          sample_ratio: 0.25,
          service_name: 'skillgate-eu',
        },
        metrics_port: 9464,
        keep_queries: true,
      },
    });
  });

  it('full.yaml sets every documented key to a non-default value, so the round trip covers them all', () => {
    const raw = parse(readFileSync(fixture('full.yaml'), 'utf8')) as Record<string, unknown>;
    for (const { key, default: text } of configReference()) {
      const value = key
        .split('.')
        .reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], raw);
      expect(value, key).toBeDefined();
      expect(JSON.stringify(value), key).not.toBe(text);
    }
  });

  it('resolves relative roots against the config file folder, not the cwd', async () => {
    const { config } = await loadConfig({ file: fixture('nested/skillgate.yaml'), env: {} });
    expect(config.skills.roots).toEqual([fixture('skills-one'), fixture('nested/two'), '/abs/three']);
  });

  it('resolves a relative file path against the cwd', async () => {
    const { file } = await loadConfig({ file: './test/fixtures/empty.yaml', env: {} });
    expect(file).toBe(join(process.cwd(), 'test/fixtures/empty.yaml'));
  });

  it('treats a file of comments, and sections emptied by comments, as all defaults', async () => {
    const defaults = parseConfig(undefined, { baseDir: fixtures });
    expect((await loadConfig({ file: fixture('empty.yaml'), env: {} })).config).toEqual(defaults);
    expect((await loadConfig({ file: fixture('emptied-sections.yaml'), env: {} })).config).toEqual(defaults);
  });

  it('returns a frozen config', async () => {
    const { config } = await loadConfig({ file: fixture('full.yaml'), env: {} });
    expect(() => Object.assign(config.server, { port: 1 })).toThrow(TypeError);
  });
});

describe('loadConfig without a file', () => {
  it('uses the defaults (no skill roots), with paths relative to the cwd', async () => {
    const { config, file } = await loadConfig({ env: {} });
    expect(file).toBeUndefined();
    expect(config.server.port).toBe(3000);
    expect(config.skills.roots).toEqual([]);
    expect(config.sources.lock_file).toBe(join(process.cwd(), 'skillgate.lock.yaml'));
  });

  it('ignores an empty SKILLGATE_CONFIG', async () => {
    expect((await loadConfig({ env: { SKILLGATE_CONFIG: '' } })).file).toBeUndefined();
  });
});

describe('loadConfig precedence: overrides > env > file > defaults', () => {
  const file = fixture('full.yaml');

  it('takes the file from SKILLGATE_CONFIG, and options.file over it', async () => {
    expect((await loadConfig({ env: { SKILLGATE_CONFIG: file } })).config.server.port).toBe(8080);
    const both = await loadConfig({ file: fixture('empty.yaml'), env: { SKILLGATE_CONFIG: file } });
    expect(both.file).toBe(fixture('empty.yaml'));
    expect(both.config.server.port).toBe(3000);
  });

  it('applies SKILLGATE_HOST, SKILLGATE_PORT and SKILLGATE_LOG_LEVEL over the file', async () => {
    const env = { SKILLGATE_HOST: '127.0.0.2', SKILLGATE_PORT: '9000', SKILLGATE_LOG_LEVEL: 'warn' };
    const { config } = await loadConfig({ file, env });
    expect(config.server).toMatchObject({ host: '127.0.0.2', port: 9000, path: '/gateway/mcp' });
    expect(config.logging).toEqual({ level: 'warn', format: 'pretty', log_arguments: true });
  });

  it('applies env overrides without a file, and ignores empty variables', async () => {
    const { config } = await loadConfig({ env: { SKILLGATE_PORT: ' 0 ', SKILLGATE_HOST: '' } });
    expect(config.server).toMatchObject({ host: '127.0.0.1', port: 0 });
  });

  it('applies overrides (CLI flags) over env and file', async () => {
    const env = { SKILLGATE_HOST: '127.0.0.2', SKILLGATE_PORT: '9000' };
    const { config } = await loadConfig({ file, env, overrides: { host: '::1', port: 9100 } });
    expect(config.server).toMatchObject({ host: '::1', port: 9100 });
    const partial = await loadConfig({ file, env, overrides: { port: 9100 } });
    expect(partial.config.server).toMatchObject({ host: '127.0.0.2', port: 9100 });
  });

  it('refuses a SKILLGATE_PORT that is not an integer port', async () => {
    for (const value of ['eighty', '80.5', '0x50', '1e3', '-1', '65536', '80 80']) {
      const error = await failure(loadConfig({ env: { SKILLGATE_PORT: value } }));
      expect(error.code, value).toBe('CONFIG_INVALID');
      expect(error.issues.map((i) => i.path)).toEqual(['SKILLGATE_PORT']);
    }
  });

  it('blames a bad override on its variable or flag', async () => {
    const level = await failure(loadConfig({ env: { SKILLGATE_LOG_LEVEL: 'loud' } }));
    expect(level.issues.map((i) => i.path)).toEqual(['logging.level']);
    expect(level.issues[0]?.message).toContain('SKILLGATE_LOG_LEVEL');
    const port = await failure(loadConfig({ env: {}, overrides: { port: 70_000 } }));
    expect(port.issues.map((i) => i.path)).toEqual(['server.port']);
    expect(port.issues[0]?.message).toContain('--port');
  });

  it('does not let an override hide a section of the wrong type', async () => {
    const error = await failure(
      loadConfig({ file: fixture('wrong-section.yaml'), env: { SKILLGATE_PORT: '1' } }),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.issues.map((i) => i.path)).toEqual(['server']);
  });
});

describe('loadConfig failures', () => {
  it('CONFIG_NOT_FOUND for a missing file, given directly or by SKILLGATE_CONFIG', async () => {
    const direct = await failure(loadConfig({ file: fixture('missing.yaml'), env: {} }));
    expect(direct.code).toBe('CONFIG_NOT_FOUND');
    expect(direct.message).toContain('missing.yaml');
    const viaEnv = await failure(loadConfig({ env: { SKILLGATE_CONFIG: fixture('missing.yaml') } }));
    expect(viaEnv.code).toBe('CONFIG_NOT_FOUND');
    expect(viaEnv.issues.map((i) => i.path)).toEqual(['SKILLGATE_CONFIG']);
  });

  it('CONFIG_NOT_FOUND for a directory', async () => {
    expect((await failure(loadConfig({ file: fixtures, env: {} }))).code).toBe('CONFIG_NOT_FOUND');
  });

  it('CONFIG_YAML with line and column for a syntax error', async () => {
    const error = await failure(loadConfig({ file: fixture('bad-yaml.yaml'), env: {} }));
    expect(error.code).toBe('CONFIG_YAML');
    expect(error.message).toMatch(/line \d+, column \d+/);
    expect(error.issues[0]?.path).toMatch(/bad-yaml\.yaml:\d+:\d+$/);
  });

  it('CONFIG_YAML for a duplicate key, which would otherwise silently pick one value', async () => {
    const error = await failure(loadConfig({ file: fixture('duplicate-keys.yaml'), env: {} }));
    expect(error.code).toBe('CONFIG_YAML');
    expect(error.issues[0]?.path).toBe(`${fixture('duplicate-keys.yaml')}:3:3`);
  });

  it('CONFIG_YAML for an alias bomb', async () => {
    const error = await failure(loadConfig({ file: fixture('alias-bomb.yaml'), env: {} }));
    expect(error.code).toBe('CONFIG_YAML');
    expect(error.message).toMatch(/alias/i);
  });

  it('CONFIG_INVALID when the file is not a mapping', async () => {
    const error = await failure(loadConfig({ file: fixture('list.yaml'), env: {} }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.issues.map((i) => i.path)).toEqual(['(root)']);
  });

  it('CONFIG_INVALID with every issue and the file name', async () => {
    const error = await failure(loadConfig({ file: fixture('invalid.yaml'), env: {} }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('invalid.yaml');
    expect(error.issues.map((i) => i.path).sort()).toEqual(['scripts.default_timeout', 'server.port']);
  });

  it('CONFIG_INVALID naming unknown keys from YAML', async () => {
    const error = await failure(loadConfig({ file: fixture('unknown-keys.yaml'), env: {} }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.issues.map((i) => i.path).sort()).toEqual(['server.prot', 'skils']);
  });
});
