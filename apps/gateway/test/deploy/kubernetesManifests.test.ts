import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig, type SkillgateConfig } from '@skillgate/config';
import { type RedisServer, startRedisServer } from '@skillgate/testkit';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Service } from 'kubernetes-models/v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { EXAMPLES_ROOT, REPO_ROOT, startTestGateway } from '../helpers/testGateway.js';
import { type Manifest, renderKustomization } from './renderKustomization.js';

// deploy/kubernetes is checked without a cluster or the kustomize binary: every object against the
// Kubernetes schema (kubernetes-models), the wiring between objects, and the probes and ports against a
// real gateway started with the ConfigMap's own config (docs/deploy.md).
const KUBE = join(REPO_ROOT, 'deploy/kubernetes');
const VARIANTS = { base: join(KUBE, 'base'), redis: join(KUBE, 'overlays/redis') } as const;

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
};

type Labels = Readonly<Record<string, string>>;
interface Port {
  readonly name?: string;
  readonly containerPort: number;
}
interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: { readonly secretKeyRef?: { readonly name: string; readonly key: string } };
}
interface HttpProbe {
  readonly httpGet: { readonly path: string; readonly port: string | number };
}
interface Container {
  readonly name: string;
  readonly image: string;
  readonly env: readonly EnvVar[];
  readonly ports: readonly Port[];
  readonly startupProbe: HttpProbe;
  readonly livenessProbe: HttpProbe;
  readonly readinessProbe: HttpProbe;
  readonly lifecycle: { readonly preStop: { readonly exec: { readonly command: readonly string[] } } };
  readonly resources: { readonly limits: { readonly memory: string } };
  readonly securityContext: Record<string, unknown> & {
    readonly capabilities: { readonly drop: string[] };
    readonly seccompProfile?: { readonly type: string };
  };
  readonly volumeMounts: readonly {
    readonly name: string;
    readonly mountPath: string;
    readonly readOnly?: boolean;
  }[];
}
interface PodSpec {
  readonly hostUsers?: boolean;
  readonly terminationGracePeriodSeconds: number;
  readonly securityContext: Record<string, unknown> & { readonly seccompProfile: { readonly type: string } };
  readonly containers: readonly Container[];
  readonly volumes: readonly {
    readonly name: string;
    readonly configMap?: { readonly name: string };
    readonly emptyDir?: object;
  }[];
}
interface Workload extends Manifest {
  readonly spec: {
    readonly replicas: number;
    readonly selector: { readonly matchLabels: Labels };
    readonly template: { readonly metadata: { readonly labels: Labels }; readonly spec: PodSpec };
  };
}
interface NetworkPolicyRule {
  readonly from?: readonly {
    readonly namespaceSelector?: { matchLabels: Labels };
    readonly podSelector?: { matchLabels: Labels };
  }[];
  readonly ports: readonly { readonly port: string | number }[];
}
interface Policy extends Manifest {
  readonly spec: {
    readonly podSelector: { readonly matchLabels: Labels };
    readonly ingress: readonly NetworkPolicyRule[];
  };
}

const selects = (selector: Labels, labels: Labels): boolean =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);

function one<T extends Manifest>(objects: readonly Manifest[], kind: string, name: string): T {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name === name);
  expect(found, `${kind} ${name}`).toHaveLength(1);
  return found[0] as T;
}

function mebibytes(quantity: string): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (match === null) throw new Error(`unexpected quantity ${quantity}`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
}

/** The rendered variant, its gateway workload and container, and the config its ConfigMap holds. */
function load(dir: string) {
  const rendered = renderKustomization(dir);
  const deployment = one<Workload>(rendered.objects, 'Deployment', 'skillgate');
  const pod = deployment.spec.template.spec;
  const container = pod.containers.find((c) => c.name === 'gateway');
  if (container === undefined) throw new Error('no gateway container');
  const configEnv = container.env.find((e) => e.name === 'SKILLGATE_CONFIG')?.value ?? '';
  const mount = container.volumeMounts.find((m) => configEnv.startsWith(`${m.mountPath}/`));
  const volume = pod.volumes.find((v) => v.name === mount?.name);
  const configMapName = volume?.configMap?.name ?? '';
  const configKey = configEnv.slice((mount?.mountPath.length ?? 0) + 1);
  const configFile = rendered.configFiles.get(configMapName)?.get(configKey);
  if (configFile === undefined)
    throw new Error(`SKILLGATE_CONFIG ${configEnv} is not a key of a generated ConfigMap`);
  const configInput = parseYaml(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  const config: SkillgateConfig = parseConfig(configInput, { baseDir: REPO_ROOT });
  return { ...rendered, deployment, pod, container, config, configInput, configMapName, configKey };
}

const containerPort = (container: Container, port: string | number): number | undefined =>
  typeof port === 'number' ? port : container.ports.find((p) => p.name === port)?.containerPort;

describe.each(Object.entries(VARIANTS))('deploy/kubernetes %s', (variant, dir) => {
  const v = load(dir);
  const gatewayLabels = v.deployment.spec.template.metadata.labels;

  it('every object passes the Kubernetes schema', () => {
    for (const object of v.objects) {
      const Model = MODELS[`${object.apiVersion}/${object.kind}`];
      expect(Model, `${object.apiVersion} ${object.kind} has a model`).toBeDefined();
      if (Model === undefined) continue;
      expect(
        () => new Model(object as never).validate(),
        `${object.kind} ${object.metadata.name}`,
      ).not.toThrow();
    }
    expect(
      v.objects.filter((o) => o.kind !== 'Namespace').every((o) => o.metadata.namespace === 'skillgate'),
    ).toBe(true);
    expect(v.container.image).toBe('skillgate:latest');
  });

  it('the ConfigMap holds a config the gateway accepts, with its ports where the pod, Service and policy expect them', () => {
    expect(v.configMapName).toBe('skillgate-config');
    one(v.objects, 'ConfigMap', 'skillgate-config');
    expect(containerPort(v.container, 'mcp')).toBe(v.config.server.port);
    expect(containerPort(v.container, 'metrics')).toBe(v.config.observability.metrics_port);
    const service = one<
      Manifest & { spec: { selector: Labels; ports: { port: number; targetPort: string }[] } }
    >(v.objects, 'Service', 'skillgate');
    expect(selects(service.spec.selector, gatewayLabels)).toBe(true);
    expect(service.spec.ports.map((p) => containerPort(v.container, p.targetPort))).toEqual([
      v.config.server.port,
      v.config.observability.metrics_port,
    ]);
  });

  it('tokens and the Redis URL come from Secret references, never from values in the manifests', () => {
    const fromSecrets = new Set(v.container.env.filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.name));
    const needed = v.config.auth.tokens.flatMap((t) => (t.token_env === undefined ? [] : [t.token_env]));
    if (v.config.state.backend === 'redis') needed.push(v.config.state.redis_url_env);
    expect(needed.length).toBeGreaterThan(0);
    for (const name of needed) expect(fromSecrets, name).toContain(name);
    expect(v.container.env.filter((e) => e.value !== undefined).map((e) => e.name)).toEqual([
      'SKILLGATE_CONFIG',
    ]);
  });

  it('the admin token opens the operator page only: it may use no skill, so a leaked one runs no script', () => {
    const admins = v.config.auth.tokens.filter((t) => t.admin);
    expect(admins.length).toBeGreaterThan(0);
    for (const token of admins) expect(token.skills, token.name).toEqual([]);
  });

  it('selectors match the pods: Deployment, Service, NetworkPolicy (and HPA and PDB with Redis)', () => {
    expect(selects(v.deployment.spec.selector.matchLabels, gatewayLabels)).toBe(true);
    const policy = one<Policy>(v.objects, 'NetworkPolicy', 'skillgate');
    expect(selects(policy.spec.podSelector.matchLabels, gatewayLabels)).toBe(true);
    if (v.config.state.backend === 'memory') {
      // A second replica would not know the first one's sessions: no scaling without shared state.
      expect(v.deployment.spec.replicas).toBe(1);
      expect(
        v.objects.some((o) => o.kind === 'HorizontalPodAutoscaler' || o.kind === 'PodDisruptionBudget'),
      ).toBe(false);
      return;
    }
    expect(v.deployment.spec.replicas).toBe(2);
    const hpa = one<
      Manifest & { spec: { scaleTargetRef: object; minReplicas: number; maxReplicas: number } }
    >(v.objects, 'HorizontalPodAutoscaler', 'skillgate');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'skillgate' });
    expect(hpa.spec.minReplicas).toBe(v.deployment.spec.replicas);
    const pdb = one<Manifest & { spec: { selector: { matchLabels: Labels }; minAvailable: number } }>(
      v.objects,
      'PodDisruptionBudget',
      'skillgate',
    );
    expect(selects(pdb.spec.selector.matchLabels, gatewayLabels)).toBe(true);
    // A drain must be able to evict one pod.
    expect(pdb.spec.minAvailable).toBeLessThan(hpa.spec.minReplicas);
  });

  it('the NetworkPolicy opens the MCP port to all and the metrics port only to the monitoring namespace', () => {
    const policy = one<Policy>(v.objects, 'NetworkPolicy', 'skillgate');
    const rulesFor = (port: number) =>
      policy.spec.ingress.filter((rule) =>
        rule.ports.some((p) => containerPort(v.container, p.port) === port),
      );
    const mcp = rulesFor(v.config.server.port);
    expect(mcp.some((rule) => rule.from === undefined)).toBe(true);
    const metricsPort = v.config.observability.metrics_port;
    if (metricsPort === null) throw new Error('observability.metrics_port is not set');
    const metrics = rulesFor(metricsPort);
    expect(metrics.length).toBeGreaterThan(0);
    for (const rule of metrics) {
      expect(rule.from).toEqual([
        { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
      ]);
    }
    // Every port a rule names is a port of the container.
    for (const rule of policy.spec.ingress)
      for (const p of rule.ports) expect(containerPort(v.container, p.port)).toBeDefined();
  });

  it('Redis answers only the gateway pods', () => {
    const redis = v.objects.find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'skillgate-redis') as
      | Workload
      | undefined;
    expect(redis !== undefined).toBe(variant === 'redis');
    if (redis === undefined) return;
    const redisLabels = redis.spec.template.metadata.labels;
    expect(selects(redis.spec.selector.matchLabels, redisLabels)).toBe(true);
    expect(selects(v.deployment.spec.selector.matchLabels, redisLabels)).toBe(false);
    const policy = one<Policy>(v.objects, 'NetworkPolicy', 'skillgate-redis');
    expect(selects(policy.spec.podSelector.matchLabels, redisLabels)).toBe(true);
    expect(selects(policy.spec.podSelector.matchLabels, gatewayLabels)).toBe(false);
    expect(policy.spec.ingress).toHaveLength(1);
    const [rule] = policy.spec.ingress;
    expect(rule?.from).toHaveLength(1);
    const peer = rule?.from?.[0];
    expect(peer?.namespaceSelector).toBeUndefined();
    expect(selects(peer?.podSelector?.matchLabels ?? { none: 'none' }, gatewayLabels)).toBe(true);
    const service = one<Manifest & { spec: { selector: Labels } }>(v.objects, 'Service', 'skillgate-redis');
    expect(selects(service.spec.selector, redisLabels)).toBe(true);
  });

  it('the pod outlasts the drain: terminationGracePeriodSeconds covers preStop, the grace, the kill grace and closing', () => {
    const [sleep, seconds] = v.container.lifecycle.preStop.exec.command;
    expect(sleep).toBe('sleep');
    // createGateway.close(): the drain, SIGTERM to SIGKILL of scripts, 1 s for their results, 2 s for connections.
    const needed =
      Number(seconds) + v.config.server.shutdown_grace_seconds + v.config.scripts.kill_grace_ms / 1000 + 3;
    expect(v.pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(needed);
  });

  it('runs non-root on a read-only root with a writable /tmp, and gives bubblewrap what it needs when the sandbox is on', () => {
    expect(v.pod.securityContext.runAsNonRoot).toBe(true);
    expect(v.container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
    });
    expect(v.container.securityContext.capabilities.drop).toEqual(['ALL']);
    const tmp = v.container.volumeMounts.find((m) => m.mountPath === '/tmp');
    expect(v.pod.volumes.find((vol) => vol.name === tmp?.name)?.emptyDir).toBeDefined();
    const memory = mebibytes(v.container.resources.limits.memory);
    expect(memory).toBeGreaterThanOrEqual(
      v.config.scripts.max_concurrent * v.config.scripts.limits.memory_mb + 256,
    );
    if (v.config.scripts.sandbox === 'off') return;
    // bwrap makes a user namespace (refused by the runtime's default seccomp profile) and mounts a fresh
    // /proc (refused under a masked /proc, and Unmasked is allowed only with the pod's own user namespace).
    expect(v.pod.hostUsers).toBe(false);
    expect(v.container.securityContext.procMount).toBe('Unmasked');
    expect(['Unconfined', 'Localhost']).toContain(v.container.securityContext.seccompProfile?.type);
  });

  it('loosens seccomp and AppArmor on the gateway container only: the pod default (any sidecar) stays RuntimeDefault', () => {
    expect(v.pod.securityContext.seccompProfile.type).toBe('RuntimeDefault');
    expect(v.pod.securityContext.appArmorProfile).toBeUndefined();
    for (const container of v.pod.containers.filter((c) => c.name !== 'gateway')) {
      expect(container.securityContext.seccompProfile, container.name).toBeUndefined();
    }
  });

  if (variant === 'redis') {
    it("the overlay's config is the base's plus state in Redis", () => {
      const base = load(VARIANTS.base);
      const { state, ...rest } = v.configInput;
      expect(rest).toEqual(base.configInput);
      expect(state).toMatchObject({ backend: 'redis' });
    });
  }
});

describe.each(Object.entries(VARIANTS))('deploy/kubernetes %s probes a real gateway', (variant, dir) => {
  const v = load(dir);
  let redis: RedisServer | undefined;
  beforeAll(async () => {
    if (v.config.state.backend === 'redis') redis = await startRedisServer();
  });
  afterAll(async () => redis?.close());

  it('every probe path answers 200 on the port it names, and /metrics only on the metrics port', async () => {
    const env: Record<string, string | undefined> = {
      ...process.env,
      ...Object.fromEntries(
        v.container.env.filter((e) => e.valueFrom?.secretKeyRef).map((e) => [e.name, 'x'.repeat(32)]),
      ),
    };
    if (redis !== undefined) env[v.config.state.redis_url_env] = redis.url;
    // The ConfigMap's config as it is, on loopback ports chosen by the kernel and with the bundled skills.
    const input = v.configInput as { server: object; observability: object; skills: object };
    const gateway = await startTestGateway(
      {
        ...input,
        server: { ...input.server, host: '127.0.0.1', port: 0 },
        observability: { ...input.observability, metrics_port: 0 },
        skills: { ...input.skills, roots: [EXAMPLES_ROOT] },
      },
      env,
    );
    try {
      const listenerOf = (port: string | number) => {
        const number = containerPort(v.container, port);
        if (number === v.config.server.port) return gateway.base;
        if (number === v.config.observability.metrics_port) return gateway.metricsBase;
        throw new Error(`probe port ${port} is neither the MCP nor the metrics port`);
      };
      for (const probe of [v.container.startupProbe, v.container.livenessProbe, v.container.readinessProbe]) {
        const response = await fetch(`${listenerOf(probe.httpGet.port)}${probe.httpGet.path}`);
        expect(response.status, `${variant} ${probe.httpGet.path}`).toBe(200);
      }
      expect((await fetch(`${gateway.metricsBase}/metrics`)).status).toBe(200);
      expect((await fetch(`${gateway.base}/metrics`)).status).toBe(404);
    } finally {
      await gateway.close();
    }
  });
});
