import { z } from 'zod';
import { configSchema } from './configSchema.js';

/** Strips default/prefault/optional wrappers, which only say what happens when a key is missing. */
function unwrapSchema(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (
    current instanceof z.ZodDefault ||
    current instanceof z.ZodPrefault ||
    current instanceof z.ZodOptional
  ) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

/** The fields of a strict object schema, or undefined for any other schema. */
export function shapeOf(schema: z.ZodType): Readonly<Record<string, z.ZodType>> | undefined {
  const inner = unwrapSchema(schema);
  return inner instanceof z.ZodObject ? (inner.shape as Record<string, z.ZodType>) : undefined;
}

/** The (unwrapped) part of configSchema that validates the value at `path`, if the path is a known one. */
export function schemaAt(path: readonly PropertyKey[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = unwrapSchema(configSchema);
  for (const segment of path) {
    if (current === undefined) return undefined;
    if (current instanceof z.ZodArray && typeof segment === 'number') current = current.element as z.ZodType;
    else if (current instanceof z.ZodRecord) current = current.valueType as z.ZodType;
    else current = typeof segment === 'string' ? shapeOf(current)?.[segment] : undefined;
    current = current === undefined ? undefined : unwrapSchema(current);
  }
  return current;
}
