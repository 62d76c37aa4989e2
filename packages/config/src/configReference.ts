import type { z } from 'zod';
import { configSchema } from './configSchema.js';
import { shapeOf } from './schemaAt.js';

/** One documented config key. */
export interface ConfigKeyDoc {
  /** Dotted key path, e.g. `scripts.max_timeout_seconds`. */
  readonly key: string;
  /** The default, as JSON (which is also YAML) text. */
  readonly default: string;
  readonly description: string;
}

// Objects with a fixed shape are sections to descend into; everything else (scalars, lists, the
// interpreters map) is one documented leaf.
function collect(
  shape: Readonly<Record<string, z.ZodType>>,
  defaults: Readonly<Record<string, unknown>>,
  prefix: string,
  rows: ConfigKeyDoc[],
): void {
  for (const [name, schema] of Object.entries(shape)) {
    const key = prefix === '' ? name : `${prefix}.${name}`;
    const value = defaults[name];
    const fields = shapeOf(schema);
    if (fields !== undefined && value !== null && typeof value === 'object') {
      collect(fields, value as Record<string, unknown>, key, rows);
    } else if (fields !== undefined && value === undefined) {
      // An optional section (auth.oauth): documented as a row, then each of its keys with its own default.
      rows.push({ key, default: '', description: schema.description ?? '' });
      collect(fields, defaultsOf(fields), key, rows);
    } else {
      rows.push({ key, default: JSON.stringify(value) ?? '', description: schema.description ?? '' });
    }
  }
}

// The default of each field that has one; required fields stay undefined (documented without a default).
function defaultsOf(shape: Readonly<Record<string, z.ZodType>>): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(shape)) {
    const parsed = schema.safeParse(undefined);
    if (parsed.success) defaults[name] = parsed.data;
  }
  return defaults;
}

/** Every leaf config key with its default and description, derived from the schema so docs cannot drift. */
export function configReference(): readonly ConfigKeyDoc[] {
  const rows: ConfigKeyDoc[] = [];
  // Parsed without parseConfig so that skills.roots shows the default as written, not resolved.
  collect(configSchema.shape, configSchema.parse({}), '', rows);
  return Object.freeze(rows.map((row) => Object.freeze(row)));
}
