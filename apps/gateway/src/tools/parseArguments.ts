import type { z } from 'zod';
import { GatewayError } from '../errors/gatewayError.js';

/** Parses tool arguments or throws INVALID_ARGUMENTS naming each bad field. */
export function parseArguments<T>(schema: z.ZodType<T>, toolName: string, input: unknown): T {
  // An omitted `arguments` is an empty object; anything else (null, an array) must be an object.
  const result = schema.safeParse(input === undefined ? {} : input);
  if (result.success) return result.data;
  const details = result.error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'arguments'}: ${issue.message}`)
    .join('; ');
  throw new GatewayError('INVALID_ARGUMENTS', `Invalid arguments for tool ${toolName}: ${details}`);
}
