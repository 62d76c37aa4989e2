import type { z } from 'zod';
import { GatewayError } from '../errors/gatewayError.js';

/**
 * Per input contract: whether no arguments parse to an object with no keys. Most calls of the hot tools
 * (get_info, the per-file read tools) carry none, and zod's parse of `{}` is the same every time: asked once.
 */
const emptyParsesEmpty = new WeakMap<z.ZodType, boolean>();

const isEmptyObject = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  Object.getPrototypeOf(value) === Object.prototype &&
  Object.keys(value).length === 0;

/** Parses tool arguments or throws INVALID_ARGUMENTS naming each bad field. */
export function parseArguments<T>(schema: z.ZodType<T>, toolName: string, input: unknown): T {
  if (input === undefined || isEmptyObject(input)) {
    let empty = emptyParsesEmpty.get(schema);
    if (empty === undefined) {
      const parsed = schema.safeParse({});
      empty = parsed.success && isEmptyObject(parsed.data);
      emptyParsesEmpty.set(schema, empty);
    }
    // A new object each time, as a parse would give: a handler may keep or change its input.
    if (empty) return {} as T;
  }
  // An omitted `arguments` is an empty object; anything else (null, an array) must be an object.
  const result = schema.safeParse(input === undefined ? {} : input);
  if (result.success) return result.data;
  const details = result.error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'arguments'}: ${issue.message}`)
    .join('; ');
  throw new GatewayError('INVALID_ARGUMENTS', `Invalid arguments for tool ${toolName}: ${details}`);
}
