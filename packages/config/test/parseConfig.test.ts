import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/index.js';
import { KNOWN_CLIENT_PROFILES } from '../src/knownClientProfiles.js';

const base = { baseDir: '/srv/gateway' };

// Runs fn, which must throw CONFIG_INVALID, and returns its issues.
function issuesOf(fn: () => unknown): readonly { path: string; message: string }[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe('CONFIG_INVALID');
    return (error as ConfigError).issues;
  }
  throw new Error('expected a ConfigError');
}

const pathsOf = (input: unknown): string[] => issuesOf(() => parseConfig(input, base)).map((i) => i.path);

describe('parseConfig defaults', () => {
  it('gives the documented value for every key when nothing is set', () => {
    expect(parseConfig(undefined, base)).toEqual({
      server: {
        host: '127.0.0.1',
        port: 3000,
        path: '/mcp',
        allowed_origins: [],
        body_limit_bytes: 1_048_576,
        max_batch_size: 16,
        max_response_bytes: 16_777_216,
        max_client_string_chars: 256,
        max_json_depth: 64,
        max_json_keys: 1000,
        max_listen_streams: 1024,
        max_listen_streams_per_principal: 16,
        shutdown_grace_seconds: 10,
        trust_proxy: false,
        headers_timeout_seconds: 10,
        request_timeout_seconds: 30,
        keep_alive_timeout_seconds: 72,
        send_timeout_seconds: 30,
        max_connections: 10_000,
        max_connections_per_address: 128,
      },
      skills: {
        roots: [],
        validation: 'lenient',
        disclosure: 'namespaced',
        modern_disclosure: 'catalog',
        pinned: [],
        async_enabled: false,
        prompts: false,
        watch: false,
        watch_debounce_ms: 300,
        max_skill_md_bytes: 262_144,
        max_file_bytes: 67_108_864,
        max_description_chars: 1024,
        max_instructions_chars: 2048,
        allow_missing_roots: false,
      },
      sources: {
        list: [],
        lock_file: join(base.baseDir, 'skillgate.lock.yaml'),
        fetch_timeout_seconds: 120,
        max_bytes: 268_435_456,
        max_files: 20_000,
        follow: { interval_seconds: 0 },
      },
      tools: { max_name_length: 48, max_listed: 100, list_ttl_ms: 60_000 },
      scripts: {
        default_timeout_seconds: 30,
        max_timeout_seconds: 300,
        max_output_bytes: 1_048_576,
        default_tail: 200,
        max_concurrent: 4,
        // No fixed default: the gateway takes half of max_concurrent (at most 2) when it is unset.
        max_queue: 32,
        queue_timeout_seconds: 30,
        max_stdin_bytes: 1_048_576,
        max_args: 256,
        max_arg_bytes: 65_536,
        kill_grace_ms: 2000,
        env_passthrough: ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ'],
        interpreters: {
          '.py': ['python3'],
          '.sh': ['bash'],
          '.bash': ['bash'],
          '.js': ['node'],
          '.mjs': ['node'],
          '.cjs': ['node'],
        },
        sandbox: 'auto',
        network: false,
        limits: { memory_mb: 1024, processes: 128, file_bytes: 67_108_864, cpu_seconds: 300 },
        credentials: [],
      },
      resources: { max_text_bytes: 262_144, max_binary_bytes: 5_242_880 },
      jobs: { ttl_seconds: 3600, max_per_session: 16 },
      sessions: {
        ttl_seconds: 3600,
        max_sessions: 10_000,
        max_per_principal: 1000,
        relist_wait_ms: 1000,
        relist_grace_ms: 100,
        scope: 'session',
      },
      auth: { tokens: [], allow_anonymous: false, anonymous_skills: ['*'] },
      rate_limit: { requests_per_second: 50, burst: 200, bytes_per_request: 65_536 },
      state: { backend: 'memory', redis_url_env: 'SKILLGATE_REDIS_URL', key_prefix: 'skillgate:' },
      clients: KNOWN_CLIENT_PROFILES.map((p) => ({ match: { ...p.match }, disclosure: p.disclosure })),
      upstreams: [],
      credentials: { store: 'auto', keys: [], connect: {}, providers: [] },
      logging: { level: 'info', format: 'auto', log_arguments: false },
      observability: {
        tracing: {
          protocol: 'http/protobuf',
          headers_from_env: {},
          sample_ratio: 1,
          service_name: 'skillgate',
        },
        metrics_port: null,
        keep_queries: false,
      },
    });
  });

  it('treats null, {} and emptied (null) sections alike', () => {
    const defaults = parseConfig(undefined, base);
    expect(parseConfig(null, base)).toEqual(defaults);
    expect(parseConfig({}, base)).toEqual(defaults);
    expect(parseConfig({ server: null, auth: { tokens: null } }, base)).toEqual(defaults);
  });

  it('fills the keys a section leaves out', () => {
    const c = parseConfig({ server: { port: 4000 }, scripts: { max_timeout_seconds: 600 } }, base);
    expect(c.server.port).toBe(4000);
    expect(c.server.host).toBe('127.0.0.1');
    expect(c.scripts).toMatchObject({
      max_timeout_seconds: 600,
      default_timeout_seconds: 30,
      max_concurrent: 4,
    });
  });

  it('defaults to the sandbox when it works, no network and finite limits; 0 turns a limit off', () => {
    const c = parseConfig({}, base);
    expect(c.scripts).toMatchObject({
      sandbox: 'auto',
      network: false,
      limits: { memory_mb: 1024, processes: 128, file_bytes: 67_108_864, cpu_seconds: 300 },
    });
    const off = parseConfig({ scripts: { sandbox: 'off', limits: { memory_mb: 0, cpu_seconds: 5 } } }, base);
    expect(off.scripts.sandbox).toBe('off');
    expect(off.scripts.limits).toEqual({
      memory_mb: 0,
      processes: 128,
      file_bytes: 67_108_864,
      cpu_seconds: 5,
    });
  });

  it('lets a user interpreters map replace the default map', () => {
    const c = parseConfig({ scripts: { interpreters: { '.rb': ['ruby', '-w'] } } }, base);
    expect(c.scripts.interpreters).toEqual({ '.rb': ['ruby', '-w'] });
  });

  it('defaults a token to every skill, and to no admin (the operator page)', () => {
    const c = parseConfig({ auth: { tokens: [{ name: 'a', token_env: 'A' }] } }, base);
    expect(c.auth.tokens).toEqual([{ name: 'a', token_env: 'A', skills: ['*'], admin: false }]);
  });
});

describe('parseConfig skills.roots', () => {
  it('resolves relative roots against baseDir, keeps absolute ones and their order', () => {
    const c = parseConfig({ skills: { roots: ['./a', 'b/c', '../d', '/abs/e'] } }, base);
    expect(c.skills.roots).toEqual(['/srv/gateway/a', '/srv/gateway/b/c', '/srv/d', '/abs/e']);
  });

  it('has none by default: a config names its roots (configs/skillgate.yaml names the bundled examples)', () => {
    expect(parseConfig({}, base).skills.roots).toEqual([]);
    expect(pathsOf({ skills: { roots: [''] } })).toEqual(['skills.roots[0]']);
  });
});

describe('parseConfig refuses unknown keys', () => {
  it.each([
    [{ nope: 1 }, 'nope'],
    [{ server: { prot: 1 } }, 'server.prot'],
    [{ scripts: { timeout: 5 } }, 'scripts.timeout'],
    [{ auth: { tokens: [{ name: 'a', token_env: 'A', secret: 'x' }] } }, 'auth.tokens[0].secret'],
    [{ clients: [{ match: { name: 'x', version: '1' }, disclosure: 'eager' }] }, 'clients[0].match.version'],
    [{ rate_limit: { burst: 5, per_ip: true } }, 'rate_limit.per_ip'],
  ])('%j -> %s', (input, path) => {
    expect(pathsOf(input)).toEqual([path]);
  });

  it('reports each unknown key of one object separately', () => {
    expect(pathsOf({ server: { a: 1, b: 2 }, c: 3 }).sort()).toEqual(['c', 'server.a', 'server.b']);
  });

  it('suggests the key that was probably meant', () => {
    const issues = issuesOf(() => parseConfig({ skils: {}, server: { prot: 1 } }, base));
    expect(issues.find((i) => i.path === 'skils')?.message).toContain('skills');
    expect(issues.find((i) => i.path === 'server.prot')?.message).toContain('port');
  });
});

describe('parseConfig refuses wrong types and out-of-range values', () => {
  it.each([
    [{ server: { port: '3000' } }, 'server.port'],
    [{ server: { port: 65536 } }, 'server.port'],
    [{ server: { port: -1 } }, 'server.port'],
    [{ server: { port: 80.5 } }, 'server.port'],
    [{ server: { host: 'http://0.0.0.0' } }, 'server.host'],
    [{ server: { path: 'mcp' } }, 'server.path'],
    [{ server: { allowed_origins: ['https://app.example.com/'] } }, 'server.allowed_origins[0]'],
    [{ server: { allowed_origins: ['app.example.com'] } }, 'server.allowed_origins[0]'],
    [{ server: { body_limit_bytes: 10 } }, 'server.body_limit_bytes'],
    [{ server: { trust_proxy: 'yes' } }, 'server.trust_proxy'],
    [{ server: { transport: 'sdk' } }, 'server.transport'],
    [{ server: { headers_timeout_seconds: 0 } }, 'server.headers_timeout_seconds'],
    [{ server: { keep_alive_timeout_seconds: -1 } }, 'server.keep_alive_timeout_seconds'],
    [{ server: { max_connections: 0 } }, 'server.max_connections'],
    [{ server: { max_connections_per_address: 1.5 } }, 'server.max_connections_per_address'],
    [{ server: 5 }, 'server'],
    [{ skills: { roots: './skills' } }, 'skills.roots'],
    [{ skills: { validation: 'pedantic' } }, 'skills.validation'],
    [{ skills: { disclosure: 'lazy' } }, 'skills.disclosure'],
    [{ skills: { watch_debounce_ms: 0 } }, 'skills.watch_debounce_ms'],
    [{ skills: { max_skill_md_bytes: 100 } }, 'skills.max_skill_md_bytes'],
    [{ skills: { max_file_bytes: 100 } }, 'skills.max_file_bytes'],
    [{ skills: { max_description_chars: 1025 } }, 'skills.max_description_chars'],
    [{ tools: { max_name_length: 31 } }, 'tools.max_name_length'],
    [{ tools: { max_name_length: 65 } }, 'tools.max_name_length'],
    [{ scripts: { default_timeout_seconds: 0, max_timeout_seconds: 10 } }, 'scripts.default_timeout_seconds'],
    [{ scripts: { max_timeout_seconds: Number.POSITIVE_INFINITY } }, 'scripts.max_timeout_seconds'],
    [{ scripts: { max_output_bytes: 1023 } }, 'scripts.max_output_bytes'],
    [{ scripts: { max_concurrent: 0 } }, 'scripts.max_concurrent'],
    [{ scripts: { max_concurrent_per_principal: 0 } }, 'scripts.max_concurrent_per_principal'],
    [{ scripts: { max_queue: -1 } }, 'scripts.max_queue'],
    [{ scripts: { env_passthrough: ['NOT-A-NAME'] } }, 'scripts.env_passthrough[0]'],
    [{ scripts: { interpreters: { py: ['python3'] } } }, 'scripts.interpreters.py'],
    [{ scripts: { interpreters: { '.py': [] } } }, 'scripts.interpreters[".py"]'],
    [{ scripts: { interpreters: { '.py': 'python3' } } }, 'scripts.interpreters[".py"]'],
    [{ scripts: { sandbox: 'firejail' } }, 'scripts.sandbox'],
    [{ scripts: { sandbox: true } }, 'scripts.sandbox'],
    [{ scripts: { network: 'yes' } }, 'scripts.network'],
    [{ scripts: { limits: { memory_mb: -1 } } }, 'scripts.limits.memory_mb'],
    [{ scripts: { limits: { processes: 1.5 } } }, 'scripts.limits.processes'],
    [{ scripts: { limits: { file_bytes: '1G' } } }, 'scripts.limits.file_bytes'],
    [{ scripts: { limits: { cpu_seconds: 7 * 86_400 + 1 } } }, 'scripts.limits.cpu_seconds'],
    [{ scripts: { limits: { wall_seconds: 5 } } }, 'scripts.limits.wall_seconds'],
    [{ sessions: { scope: 'global' } }, 'sessions.scope'],
    [{ auth: { tokens: [{ name: 'has space', token_env: 'A' }] } }, 'auth.tokens[0].name'],
    [{ auth: { tokens: [{ name: 'a', token_sha256: 'abc' }] } }, 'auth.tokens[0].token_sha256'],
    [{ auth: { allow_anonymous: 1 } }, 'auth.allow_anonymous'],
    [{ rate_limit: { requests_per_second: -1 } }, 'rate_limit.requests_per_second'],
    [{ rate_limit: { burst: 0 } }, 'rate_limit.burst'],
    [{ state: { backend: 'postgres' } }, 'state.backend'],
    [{ state: { redis_url_env: 'redis://localhost' } }, 'state.redis_url_env'],
    [{ state: { key_prefix: 'has space' } }, 'state.key_prefix'],
    [{ clients: [{ match: { name: 'x' } }] }, 'clients[0].disclosure'],
    [{ logging: { level: 'verbose' } }, 'logging.level'],
    [{ logging: { format: 'text' } }, 'logging.format'],
    [['server'], '(root)'],
  ])('%j -> %s', (input, path) => {
    const issues = issuesOf(() => parseConfig(input, base));
    expect(issues.map((i) => i.path)).toEqual([path]);
    expect(issues[0]?.message).toMatch(/\w/);
  });

  it('reports every problem at once, across sections', () => {
    const paths = pathsOf({
      server: { port: 'http', extra: true },
      tools: { max_name_length: 80 },
      skills: { disclosure: 'lazy', roots: [''] },
      scripts: { default_timeout_seconds: 60, max_timeout_seconds: 30 },
      auth: {
        tokens: [
          { name: 'a', token_env: 'A' },
          { name: 'a', token_env: 'B' },
        ],
      },
    });
    expect(paths.sort()).toEqual([
      'auth.tokens[1].name',
      'scripts.default_timeout_seconds',
      'server.extra',
      'server.port',
      'skills.disclosure',
      'skills.roots[0]',
      'tools.max_name_length',
    ]);
  });
});

describe('parseConfig cross-field checks', () => {
  it('keeps default_timeout_seconds within max_timeout_seconds, including the default max', () => {
    expect(pathsOf({ scripts: { default_timeout_seconds: 60, max_timeout_seconds: 30 } })).toEqual([
      'scripts.default_timeout_seconds',
    ]);
    expect(pathsOf({ scripts: { default_timeout_seconds: 301 } })).toEqual([
      'scripts.default_timeout_seconds',
    ]);
    expect(
      parseConfig({ scripts: { default_timeout_seconds: 30, max_timeout_seconds: 30 } }, base).scripts
        .max_timeout_seconds,
    ).toBe(30);
  });

  it('keeps args within what Linux execs: max_arg_bytes at most one argument (131,071), max_args at most 4,096', () => {
    expect(pathsOf({ scripts: { max_arg_bytes: 131_072 } })).toEqual(['scripts.max_arg_bytes']);
    expect(pathsOf({ scripts: { max_args: 4097 } })).toEqual(['scripts.max_args']);
    const highest = parseConfig({ scripts: { max_arg_bytes: 131_071, max_args: 4096 } }, base).scripts;
    expect([highest.max_arg_bytes, highest.max_args]).toEqual([131_071, 4096]);
  });

  it('keeps headers_timeout_seconds within request_timeout_seconds, including the default', () => {
    expect(pathsOf({ server: { headers_timeout_seconds: 20, request_timeout_seconds: 15 } })).toEqual([
      'server.headers_timeout_seconds',
    ]);
    expect(pathsOf({ server: { headers_timeout_seconds: 31 } })).toEqual(['server.headers_timeout_seconds']);
    const server = parseConfig(
      { server: { headers_timeout_seconds: 5, request_timeout_seconds: 5 } },
      base,
    ).server;
    expect(server.request_timeout_seconds).toBe(5);
  });

  it('refuses a second token with the same name', () => {
    const tokens = [
      { name: 'a', token_env: 'A' },
      { name: 'b', token_env: 'B' },
      { name: 'a', token_sha256: 'a'.repeat(64) },
    ];
    expect(pathsOf({ auth: { tokens } })).toEqual(['auth.tokens[2].name']);
  });

  it('needs exactly one of token_env and token_sha256', () => {
    expect(pathsOf({ auth: { tokens: [{ name: 'a' }] } })).toEqual(['auth.tokens[0]']);
    expect(
      pathsOf({ auth: { tokens: [{ name: 'a', token_env: 'A', token_sha256: 'a'.repeat(64) }] } }),
    ).toEqual(['auth.tokens[0]']);
  });

  it('needs exactly one of url and command per upstream, and unique ids', () => {
    expect(pathsOf({ upstreams: [{ id: 'a' }] })).toEqual(['upstreams[0]']);
    expect(pathsOf({ upstreams: [{ id: 'a', url: 'http://x/mcp', command: ['node'] }] })).toEqual([
      'upstreams[0]',
    ]);
    expect(
      pathsOf({
        upstreams: [
          { id: 'a', url: 'http://x/mcp' },
          { id: 'a', command: ['node'] },
        ],
      }),
    ).toEqual(['upstreams[1].id']);
  });

  it.each([
    [{ id: 'GitHub', url: 'http://x/mcp' }, 'upstreams[0].id'],
    [{ id: 'a_b', url: 'http://x/mcp' }, 'upstreams[0].id'],
    [{ id: '-a', url: 'http://x/mcp' }, 'upstreams[0].id'],
    [{ id: 'a', url: 'ftp://x/mcp' }, 'upstreams[0].url'],
    [{ id: 'a', url: 'https://user:secret@x/mcp' }, 'upstreams[0].url'],
    [{ id: 'a', command: [] }, 'upstreams[0].command'],
    [
      { id: 'a', url: 'http://x/mcp', headers_from_env: { 'Bad Header': 'X' } },
      'upstreams[0].headers_from_env["Bad Header"]',
    ],
    [
      { id: 'a', url: 'http://x/mcp', headers_from_env: { 'Mcp-Session-Id': 'X' } },
      'upstreams[0].headers_from_env.Mcp-Session-Id',
    ],
    [
      { id: 'a', url: 'http://x/mcp', headers_from_env: { Authorization: 'not-a-var' } },
      'upstreams[0].headers_from_env.Authorization',
    ],
    [{ id: 'a', url: 'http://x/mcp', env_from: { A: 'B' } }, 'upstreams[0].env_from'],
    [{ id: 'a', command: ['x'], headers_from_env: { A: 'B' } }, 'upstreams[0].headers_from_env'],
    [{ id: 'a', url: 'http://x/mcp', skill: 'yes' }, 'upstreams[0].skill'],
    [{ id: 'a', url: 'http://x/mcp', tools: [] }, 'upstreams[0].tools'],
    [{ id: 'a', url: 'http://x/mcp', max_concurrent: 0 }, 'upstreams[0].max_concurrent'],
    [{ id: 'a', url: 'http://x/mcp', timeout_seconds: 0 }, 'upstreams[0].timeout_seconds'],
    [{ id: 'a', url: 'http://x/mcp', secret: 'x' }, 'upstreams[0].secret'],
  ])('refuses upstream %j at %s', (upstream, path) => {
    expect(pathsOf({ upstreams: [upstream] })).toEqual([path]);
  });

  it('gives an upstream its documented defaults', () => {
    expect(
      parseConfig({ upstreams: [{ id: 'files', command: ['node', 'server.js'] }] }, base).upstreams,
    ).toEqual([
      {
        id: 'files',
        command: ['node', 'server.js'],
        skill: 'auto',
        tools: ['*'],
        timeout_seconds: 60,
        max_concurrent: 8,
        // No fixed default: the gateway takes half of max_concurrent (at most 4) when it is unset.
        max_result_bytes: 1_048_576,
        max_tools: 256,
        max_tool_schema_bytes: 16_384,
        max_tool_description_bytes: 4096,
      },
    ]);
  });

  it('needs a client match on name or principal', () => {
    expect(pathsOf({ clients: [{ match: {}, disclosure: 'eager' }] })).toEqual(['clients[0].match']);
    const c = parseConfig({ clients: [{ match: { principal: 'agent-*' }, disclosure: 'eager' }] }, base);
    expect(c.clients).toEqual([{ match: { principal: 'agent-*' }, disclosure: 'eager' }]);
  });
});

describe('parseConfig result', () => {
  it('is deeply frozen: mutation throws at every level', () => {
    const c = parseConfig(
      {
        auth: { tokens: [{ name: 'a', token_env: 'A' }] },
        clients: [{ match: { name: 'x' }, disclosure: 'eager' }],
      },
      base,
    );
    const mutations: (() => void)[] = [
      () => Object.assign(c, { server: {} }),
      () => Object.assign(c.server, { port: 1 }),
      () => (c.skills.roots as string[]).push('/x'),
      () => (c.scripts.interpreters['.py'] as string[]).push('-I'),
      () => Object.assign(c.scripts.interpreters, { '.rb': ['ruby'] }),
      () => Object.assign(c.auth.tokens[0] ?? {}, { name: 'b' }),
      () => ((c.auth.tokens[0]?.skills ?? []) as string[]).push('x'),
      () => Object.assign(c.clients[0]?.match ?? {}, { name: 'y' }),
    ];
    for (const mutate of mutations) expect(mutate).toThrow(TypeError);
  });

  it('shares no mutable state between parses or with the input', () => {
    const input = { skills: { roots: ['/a'] } };
    const first = parseConfig(input, base);
    input.skills.roots.push('/b');
    expect(first.skills.roots).toEqual(['/a']);
    expect(Object.isFrozen(input.skills.roots)).toBe(false);
    expect(Object.isFrozen(parseConfig({}, base).scripts.interpreters)).toBe(true);
    expect(parseConfig({}, base).scripts.interpreters).not.toBe(parseConfig({}, base).scripts.interpreters);
  });
});
