import { isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { ConfigError, type ConfigIssue } from './configError.js';
import { configSchema, type SkillgateConfig } from './configSchema.js';

const dotted = (path: readonly PropertyKey[]): string =>
  path.reduce<string>(
    (acc, key) =>
      typeof key === 'number' ? `${acc}[${key}]` : acc === '' ? String(key) : `${acc}.${String(key)}`,
    '',
  );

function issuesOf(error: z.ZodError): ConfigIssue[] {
  return error.issues.map((issue) => {
    // Unknown keys are reported on their parent; name each key so the message points at it.
    if (issue.code === 'unrecognized_keys') {
      const parent = dotted(issue.path);
      return {
        path: issue.keys.map((k) => (parent === '' ? k : `${parent}.${k}`)).join(', '),
        message: 'unknown key',
      };
    }
    return { path: dotted(issue.path) || '(root)', message: issue.message };
  });
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Validates a config object (undefined/null = all defaults), resolves roots against baseDir, and freezes it. */
export function parseConfig(input: unknown, options: { baseDir: string }): SkillgateConfig {
  const result = configSchema.safeParse(input ?? {});
  if (!result.success) {
    const issues = issuesOf(result.error);
    throw new ConfigError('CONFIG_INVALID', issues.map((i) => `${i.path}: ${i.message}`).join('; '), {
      issues,
    });
  }
  const config = result.data;
  config.skills.roots = config.skills.roots.map((root) =>
    isAbsolute(root) ? root : resolve(options.baseDir, root),
  );
  return deepFreeze(config) as SkillgateConfig;
}
