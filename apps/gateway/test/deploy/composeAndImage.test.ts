import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '@skillgate/config';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { EXAMPLES_ROOT, REPO_ROOT, startTestGateway } from '../helpers/testGateway.js';

// What `docker run` (configs/docker.yaml) and `docker compose up` (compose.yaml, configs/skillgate-redis.yaml)
// deploy, checked without a Docker engine: the shared state's reach, and what the published port gives a
// caller without a token.

interface ComposeService {
  readonly networks?: readonly string[];
  readonly security_opt?: readonly string[];
  readonly ports?: readonly string[];
}

// `merge`: compose.yaml's replicas are `<<: *gateway`, as Docker Compose reads them.
const readYaml = (path: string): unknown =>
  parseYaml(readFileSync(join(REPO_ROOT, path), 'utf8'), { merge: true });

/** Networks each service of compose.yaml joins (`default` when it names none, as Docker Compose does). */
function composeNetworks(): Map<string, readonly string[]> {
  const compose = readYaml('compose.yaml') as { services: Record<string, ComposeService> };
  return new Map(Object.entries(compose.services).map(([name, s]) => [name, s.networks ?? ['default']]));
}

describe('compose.yaml', () => {
  it('Redis (no password) shares a network only with the gateways: the upstream container and the balancer cannot reach the shared state', () => {
    const networks = composeNetworks();
    const redis = networks.get('redis') ?? [];
    expect(redis.length).toBeGreaterThan(0);
    const reachRedis = [...networks]
      .filter(([name, nets]) => name !== 'redis' && nets.some((n) => redis.includes(n)))
      .map(([name]) => name)
      .sort();
    expect(reachRedis).toEqual(['gateway-1', 'gateway-2']);
  });
});

it("compose's gateways get what bubblewrap needs, which their config requires", () => {
  const compose = readYaml('compose.yaml') as { services: Record<string, ComposeService> };
  for (const name of ['gateway-1', 'gateway-2']) {
    expect(compose.services[name]?.security_opt, name).toEqual(
      expect.arrayContaining(['seccomp=unconfined', 'apparmor=unconfined', 'systempaths=unconfined']),
    );
  }
});

describe('the Docker build context', () => {
  it('leaves out .env, where the README and compose.yaml put SKILLGATE_TOKEN (COPY . . would keep it in a layer)', () => {
    const patterns = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    // Docker matches each pattern against the whole path from the context root; `**/` also matches at the root.
    expect(patterns).toEqual(expect.arrayContaining(['**/.env', '**/.env.*']));
    expect(patterns.filter((p) => p.startsWith('!'))).toEqual([]);
  });
});

describe.each([
  ['configs/docker.yaml', 'the image'],
  ['configs/skillgate-redis.yaml', 'compose'],
  ['configs/multi-agent.yaml', 'several agents on one host'],
])('%s (%s)', (file) => {
  it('binding beyond loopback, puts /metrics (skill and upstream names) on its own port, not on the published MCP port', () => {
    const config = parseConfig(readYaml(file), { baseDir: REPO_ROOT });
    expect(config.server.host).toBe('0.0.0.0');
    expect(config.observability.metrics_port).toBeGreaterThan(0);
    expect(config.observability.metrics_port).not.toBe(config.server.port);
  });

  it('never runs skill scripts unsandboxed next to the token: scripts.sandbox is bwrap, not auto', () => {
    const config = parseConfig(readYaml(file), { baseDir: REPO_ROOT });
    expect(config.scripts.sandbox).toBe('bwrap');
  });
});

it('a gateway on configs/docker.yaml answers /metrics on the metrics port only: the published port has none', async () => {
  const shipped = readYaml('configs/docker.yaml') as Record<string, Record<string, unknown>>;
  const gw = await startTestGateway(
    {
      ...shipped,
      skills: { ...shipped.skills, roots: [EXAMPLES_ROOT] },
      // Any free port where the shipped config names one (tests run side by side).
      ...(shipped.observability?.metrics_port === undefined
        ? {}
        : { observability: { ...shipped.observability, metrics_port: 0 } }),
    },
    { ...process.env, SKILLGATE_TOKEN: 'compose-image-token-3c9a1f7e' },
  );
  try {
    expect((await fetch(`${gw.base}/metrics`)).status).toBe(404);
    expect(gw.metricsBase).toBeDefined();
    const scraped = await fetch(`${gw.metricsBase}/metrics`);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('skillgate_skills_loaded');
  } finally {
    await gw.close();
  }
});
