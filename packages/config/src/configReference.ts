import type { z } from 'zod';
import { configSchema } from './configSchema.js';

/** One documented config key. */
export interface ConfigKeyDoc {
  readonly key: string;
  /** The default, as JSON text. */
  readonly default: string;
  readonly description: string;
}

type AnySchema = z.ZodType & { shape?: Record<string, z.ZodType>; unwrap?: () => z.ZodType };

const WRAPPERS = new Set(['default', 'prefault', 'optional']);

// Sections are wrapped in prefault(); their fields carry the descriptions. Arrays are leaves.
const unwrap = (schema: AnySchema): AnySchema => {
  let current = schema;
  while (WRAPPERS.has(current._zod.def.type) && typeof current.unwrap === 'function')
    current = current.unwrap() as AnySchema;
  return current;
};

/** Every config key with its default and description, derived from the schema (the docs cannot drift). */
export function configReference(): readonly ConfigKeyDoc[] {
  const defaults = configSchema.parse({}) as unknown as Record<string, Record<string, unknown>>;
  const rows: ConfigKeyDoc[] = [];
  const root = (
    configSchema as unknown as { def?: unknown; _zod: { def: { in?: AnySchema; schema?: AnySchema } } }
  )._zod.def;
  const top = unwrap((root.in ?? root.schema ?? configSchema) as AnySchema);
  for (const [section, sectionSchema] of Object.entries(top.shape ?? {})) {
    const inner = unwrap(sectionSchema as AnySchema);
    if (inner.shape === undefined) {
      rows.push({
        key: section,
        default: JSON.stringify(defaults[section]),
        description: sectionSchema.description ?? '',
      });
      continue;
    }
    for (const [field, fieldSchema] of Object.entries(inner.shape)) {
      rows.push({
        key: `${section}.${field}`,
        default: JSON.stringify(defaults[section]?.[field]),
        description: fieldSchema.description ?? '',
      });
    }
  }
  return rows;
}
