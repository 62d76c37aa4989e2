import { readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** One Kubernetes object as written in the manifests. */
export interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; [key: string]: unknown };
  readonly [key: string]: unknown;
}

const manifestSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.looseObject({ name: z.string() }),
});

// The parts of kustomization.yaml the manifests use; anything else is refused, so the test never silently
// renders less than kustomize would.
const kustomizationSchema = z.strictObject({
  apiVersion: z.literal('kustomize.config.k8s.io/v1beta1'),
  kind: z.literal('Kustomization'),
  namespace: z.string().optional(),
  resources: z.array(z.string()).default([]),
  configMapGenerator: z
    .array(
      z.strictObject({
        name: z.string(),
        behavior: z.enum(['create', 'replace']).optional(),
        files: z.array(z.string()),
      }),
    )
    .default([]),
  patches: z.array(z.strictObject({ path: z.string() })).default([]),
  images: z.array(z.strictObject({ name: z.string(), newTag: z.string() })).default([]),
});

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isNamedList = (value: unknown): value is Record<string, unknown>[] =>
  Array.isArray(value) && value.every((item) => isRecord(item) && typeof item.name === 'string');

/**
 * A strategic merge as kustomize does it for these manifests: maps merge key by key, lists of named items
 * (containers, env, ports, volumes) merge by `name`, anything else is replaced.
 */
function strategicMerge(target: unknown, patch: unknown): unknown {
  if (isRecord(target) && isRecord(patch)) {
    const merged: Record<string, unknown> = { ...target };
    for (const [key, value] of Object.entries(patch)) merged[key] = strategicMerge(target[key], value);
    return merged;
  }
  if (isNamedList(target) && isNamedList(patch)) {
    const merged = target.map((item) => {
      const match = patch.find((p) => p.name === item.name);
      return match === undefined ? item : strategicMerge(item, match);
    });
    return [...merged, ...patch.filter((p) => !target.some((item) => item.name === p.name))];
  }
  return patch;
}

// kustomize's `images` transformer: a container image named exactly `name` gets the tag.
function withImageTag(object: Manifest, name: string, tag: string): Manifest {
  const retag = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(retag);
    if (!isRecord(value)) return value;
    const out = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, retag(v)]));
    if (Array.isArray(value.containers) && isNamedList(value.containers))
      out.containers = value.containers.map((c) =>
        c.image === name ? { ...c, image: `${name}:${tag}` } : c,
      );
    return out;
  };
  return retag(object) as Manifest;
}

function readDocuments(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message}`);
    return manifestSchema.parse(doc.toJS()) as Manifest;
  });
}

/** A rendered kustomization: its objects, and the file each generated ConfigMap key came from. */
export interface Rendered {
  readonly objects: readonly Manifest[];
  /** ConfigMap name -> data key -> the file on disk it holds. */
  readonly configFiles: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

/**
 * Renders a kustomization folder the way `kubectl apply -k` would for what these manifests use (resources,
 * configMapGenerator, strategic-merge patches, namespace), without kustomize's name hashes.
 */
export function renderKustomization(dir: string): Rendered {
  const spec = kustomizationSchema.parse(parseYaml(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')));
  let objects: Manifest[] = [];
  const configFiles = new Map<string, Map<string, string>>();
  for (const resource of spec.resources) {
    const path = join(dir, resource);
    if (statSync(path).isDirectory()) {
      const inner = renderKustomization(path);
      objects.push(...inner.objects);
      for (const [name, files] of inner.configFiles) configFiles.set(name, new Map(files));
    } else objects.push(...readDocuments(path));
  }
  for (const generator of spec.configMapGenerator) {
    const data = Object.fromEntries(
      generator.files.map((f) => [basename(f), readFileSync(join(dir, f), 'utf8')]),
    );
    const exists = objects.some((o) => o.kind === 'ConfigMap' && o.metadata.name === generator.name);
    if (generator.behavior === 'replace' && !exists)
      throw new Error(`${dir}: nothing to replace: ${generator.name}`);
    if (generator.behavior !== 'replace' && exists) throw new Error(`${dir}: ${generator.name} exists`);
    objects = objects.filter((o) => !(o.kind === 'ConfigMap' && o.metadata.name === generator.name));
    objects.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: generator.name }, data });
    configFiles.set(generator.name, new Map(generator.files.map((f) => [basename(f), join(dir, f)])));
  }
  for (const patch of spec.patches) {
    for (const doc of readDocuments(join(dir, patch.path))) {
      const index = objects.findIndex((o) => o.kind === doc.kind && o.metadata.name === doc.metadata.name);
      const target = objects[index];
      if (target === undefined)
        throw new Error(`${dir}: ${patch.path} patches no ${doc.kind} ${doc.metadata.name}`);
      objects[index] = strategicMerge(target, doc) as Manifest;
    }
  }
  for (const image of spec.images) objects = objects.map((o) => withImageTag(o, image.name, image.newTag));
  if (spec.namespace !== undefined) {
    const namespace = spec.namespace;
    objects = objects.map((o) =>
      o.kind === 'Namespace' ? o : { ...o, metadata: { ...o.metadata, namespace } },
    );
  }
  return { objects, configFiles };
}
