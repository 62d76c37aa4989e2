import { DISCLOSURES } from '@skillgate/skills';
import { z } from 'zod';
import type { SessionRecord } from './types.js';

// Records come back from Redis, where another version of the gateway (or a person) may have written them.
const schema = z.object({
  id: z.string().min(1),
  principal: z.string().min(1),
  client: z.object({ name: z.string(), version: z.string() }),
  protocolVersion: z.string().min(1),
  disclosure: z.enum(DISCLOSURES),
  scopeKey: z.string().min(1),
  createdAt: z.number(),
  capKey: z.string().min(1).optional(),
  elicitsUrl: z.boolean().optional(),
});

/** Parses a session record read from the shared store; undefined when it is not one. */
export function parseSessionRecord(json: string): SessionRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
