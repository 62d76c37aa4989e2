import { isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { ConfigError, type ConfigIssue } from './configError.js';
import { configSchema, type SkillgateConfig } from './configSchema.js';
import { applyRenamedKeys, type Deprecation } from './renamedKeys.js';
import { schemaAt, shapeOf } from './schemaAt.js';

/** Options of parseConfig. */
export interface ParseConfigOptions {
  /** Folder that relative `skills.roots`, `sources.lock_file` and `sources.cache_dir` resolve against: the config file's folder, or the cwd. */
  readonly baseDir: string;
}

/** A parsed config and the renamed keys it was written with (renamedKeys.ts). */
export interface ParsedConfig {
  readonly config: SkillgateConfig;
  readonly deprecations: readonly Deprecation[];
}

// Paths as users write keys: `auth.tokens[0].name`, `scripts.interpreters[".py"]`.
function dottedPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => {
    if (typeof key === 'number') return `${acc}[${key}]`;
    const name = String(key);
    if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) return `${acc}[${JSON.stringify(name)}]`;
    return acc === '' ? name : `${acc}.${name}`;
  }, '');
}

const distance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
};

// A typo is the usual reason for an unknown key, so point at the key that was probably meant.
function unknownKeyMessage(parentPath: readonly PropertyKey[], key: string): string {
  const parent = schemaAt(parentPath);
  const known = parent === undefined ? [] : Object.keys(shapeOf(parent) ?? {});
  const best = known
    .map((candidate) => ({ candidate, d: distance(key.toLowerCase(), candidate) }))
    .filter(({ d }) => d <= 2)
    .sort((x, y) => x.d - y.d)[0];
  return best === undefined ? 'unknown key' : `unknown key (did you mean ${best.candidate}?)`;
}

function issuesOf(error: z.ZodError): ConfigIssue[] {
  return error.issues.flatMap((issue): ConfigIssue[] => {
    // zod reports unknown keys once on their parent; give each key its own issue and path.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: dottedPath([...issue.path, key]),
        message: unknownKeyMessage(issue.path, key),
      }));
    }
    return [{ path: dottedPath(issue.path) || '(root)', message: issue.message }];
  });
}

// In YAML an emptied section (`auth:` with every line commented out) is null; treat it as not set.
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === null ? item : dropNulls(item)));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).filter(([, child]) => child !== null);
  return Object.fromEntries(entries.map(([key, child]) => [key, dropNulls(child)]));
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

// A bad value under a renamed key is reported at the name the config wrote it with.
function blamedOnWrittenName(issue: ConfigIssue, deprecations: readonly Deprecation[]): ConfigIssue {
  const used = deprecations.find(
    (d) =>
      issue.path === d.replacement ||
      issue.path.startsWith(`${d.replacement}.`) ||
      issue.path.startsWith(`${d.replacement}[`),
  );
  return used === undefined
    ? issue
    : { ...issue, path: used.key + issue.path.slice(used.replacement.length) };
}

/**
 * Validates a config object (undefined or null = all defaults; a null key = not set), reading renamed keys as
 * their new names, resolves relative paths against baseDir and deep-freezes the result; throws ConfigError
 * CONFIG_INVALID with every issue.
 */
export function parseConfig(input: unknown, options: ParseConfigOptions): SkillgateConfig {
  return parseConfigNoting(input, options).config;
}

/** parseConfig, also naming the renamed keys the input used (the gateway logs each at start). */
export function parseConfigNoting(input: unknown, options: ParseConfigOptions): ParsedConfig {
  const given = input === undefined || input === null ? {} : dropNulls(input);
  const renamed =
    given !== null && typeof given === 'object' && !Array.isArray(given)
      ? applyRenamedKeys(given as Record<string, unknown>)
      : { input: given, deprecations: [], issues: [] };
  const result = configSchema.safeParse(renamed.input);
  const issues = [
    ...renamed.issues,
    ...(result.success
      ? []
      : issuesOf(result.error).map((i) => blamedOnWrittenName(i, renamed.deprecations))),
  ];
  if (!result.success || issues.length > 0) {
    const summary = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
    throw new ConfigError('CONFIG_INVALID', `invalid config: ${summary}`, {
      issues,
      cause: result.success ? undefined : result.error,
    });
  }
  const config = result.data;
  const fromBase = (path: string): string => (isAbsolute(path) ? path : resolve(options.baseDir, path));
  config.skills.roots = config.skills.roots.map(fromBase);
  // The lock sits beside the config by default; the cache default needs the environment (the gateway's).
  config.sources.lock_file = fromBase(config.sources.lock_file);
  if (config.sources.cache_dir !== undefined) config.sources.cache_dir = fromBase(config.sources.cache_dir);
  return { config: deepFreeze(config), deprecations: renamed.deprecations };
}
